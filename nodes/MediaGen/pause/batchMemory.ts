// What this n8n process has learnt about each paused batch between deliveries. Only for speed: a process without it
// learns each item's run exactly by re-sending its request key, which returns that run uncharged.
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import type { Refusal } from '../run/runErrors';
import type { PauseState } from './pauseState';

interface KnownRun {
	run: RunRecord;
	/** This process will hear the run's delivery (it sent the run); other runs are read. */
	watched: boolean;
	/** The status recorded at the pause, not delivered or read since: it may be out of date. */
	stale?: boolean;
}

export class BatchMemory {
	readonly runs = new Map<number, KnownRun>();
	/** Items the service refused after the pause (their outcome). */
	readonly refused = new Map<number, Refusal>();
	/** Items some call is sending right now (two calls never send the same item). */
	readonly sending = new Set<number>();
	/** Items sent whose answer was lost: the run may have been made and charged, so the key is sent again. */
	readonly unanswered = new Set<number>();
	/** This process knows every item sent so far (it paused the batch, or learnt them): any other was never sent. */
	complete = false;
	/** Items another process (webhook process, or the one before a restart) may have sent: an unowned run matches. */
	readonly maybeSent = new Set<number>();
	/**
	 * Items this process saw refused after the pause for want of credits (402): a refund may free them, and another
	 * process (a webhook process, the one before a restart) may send the same key then and be charged for its run.
	 */
	readonly refusedForCredits = new Set<number>();
	/** Items whose key, sent after the pause, brought back a run made before this execution's first new run. */
	readonly earlier = new Set<number>();
	/** Read-backs under way, by run ID: calls naming the same run share one read. */
	readonly readingBack = new Map<string, Promise<RunRecord | undefined>>();
	/** Set while a call learns which items were sent: other calls wait for it. */
	learning?: Promise<boolean>;
	/** Genuine deliveries seen; calls that failed the signature check (the last one's reason), and those taken. */
	verified = 0;
	failedChecks = 0;
	lastFailure?: string;
	readBackTaken = 0;
	/** Epoch ms a call began building the output: a second call meanwhile must not build it again. */
	resumingSince?: number;
	touchedAt = Date.now();

	positionOf(runId: unknown): number | undefined {
		for (const [position, known] of this.runs) if (known.run.id === runId) return position;
		return undefined;
	}

	isFinal(position: number): boolean {
		const known = this.runs.get(position);
		return !!known && FINAL_STATUSES.includes(known.run.status);
	}

	inFlight(): number {
		let count = this.sending.size;
		for (const position of this.runs.keys()) if (!this.isFinal(position)) count++;
		return count;
	}

	/** Records a run record, keeping the newest state (a final record is never replaced by an older one). */
	learn(position: number, run: RunRecord, watched: boolean, stale = false): void {
		const known = this.runs.get(position);
		if (known && known.run.id === run.id && this.isFinal(position) && !FINAL_STATUSES.includes(run.status)) return;
		this.runs.set(position, { run, watched: watched || !!known?.watched, ...(stale ? { stale } : {}) });
	}
}

/**
 * Per process (webhook processes, a restart: each has its own); each batch forgotten a day after its last call. Safe
 * with several processes: one that lacks an item re-sends its key, and before an output says "nothing charged" the
 * runs made since the pause are listed (BatchWalk.confirmUnsent).
 */
const memories = new Map<string, BatchMemory>();
const MAX_BATCHES = 200;
const FORGET_AFTER_MS = 24 * 3600_000;

/** This process's memory of a paused batch, knowing at least the runs its record names. */
export function batchMemoryOf(state: PauseState, executionId: string, nodeName: string): BatchMemory {
	// Batches paused by older versions have no ID: named by their execution, node and pause time.
	const key = state.batchId ?? `${executionId}|${nodeName}|${state.pausedAt}`;
	const now = Date.now();
	const memory = memories.get(key) ?? new BatchMemory();
	memories.delete(key);
	memory.touchedAt = now;
	memories.set(key, memory);
	for (const [old, { touchedAt }] of memories) {
		if (memories.size <= MAX_BATCHES && now - touchedAt <= FORGET_AFTER_MS) break;
		memories.delete(old);
	}
	state.items.forEach(({ runId, createdAt, cost }, position) => {
		if (!runId || memory.runs.has(position)) return;
		const run = { id: runId, status: 'PENDING', createdAt: createdAt ?? 0, cost } as RunRecord;
		memory.runs.set(position, { run, watched: false, stale: true });
	});
	return memory;
}
