// What this n8n process has learnt about each paused batch, between deliveries. n8n saves nothing a resume
// call does, so without this every call would have to re-learn from the service which run belongs to
// which item (and the newest-runs list can only match by content, which identical requests and other
// executions share). The memory only saves requests: a process that lacks it (restarted, or another
// webhook process) re-learns each item's run exactly by re-sending its request key, which returns that
// run uncharged. Nothing here is needed for correctness, only for speed.
import type { RunRecord } from '../../shared/records';
import { FINAL_STATUSES } from '../../shared/records';
import type { Refusal } from '../run/runErrors';

/** What one item's run is known to be. */
export interface KnownRun {
	run: RunRecord;
	/**
	 * Whether this process will see the run's delivery: it submitted the run itself (or paused the batch), so
	 * the service calls this process when it ends. Other runs' states are read from the service.
	 */
	watched: boolean;
}

/** The memory of one paused batch kept by this n8n instance. */
export class BatchMemory {
	readonly runs = new Map<number, KnownRun>();
	/** Items the service refused after the pause (their outcome). */
	readonly refused = new Map<number, Refusal>();
	/** Items being submitted right now by some call (so two calls never send the same item). */
	readonly sending = new Set<number>();
	/** Items sent whose answer was lost: the run may have been made and charged, so the key is sent again. */
	readonly unanswered = new Set<number>();
	/**
	 * True when this process knows every item sent so far (it paused the batch, or it found where sending
	 * stopped): an item it does not know is then an item never sent.
	 */
	complete = false;
	/** Read-backs under way, by run ID: calls naming the same run share one read. */
	readonly readingBack = new Map<string, Promise<RunRecord | undefined>>();
	/** Set while a call learns which items were sent: other calls wait for it instead of asking again. */
	learning?: Promise<string | undefined>;
	/** Genuine deliveries this process has seen. */
	verified = 0;
	/** Calls that failed the signature check, and why the last one did. */
	failedChecks = 0;
	lastFailure?: string;
	/** Of those, the ones taken because their run read back from the service as final (counted in verified too). */
	readBackTaken = 0;
	/** Epoch ms a call began building the output: a second call meanwhile must not build it again. */
	resumingSince?: number;
	touchedAt = Date.now();

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
	learn(position: number, run: RunRecord, watched: boolean): void {
		const known = this.runs.get(position);
		if (known && known.run.id === run.id && this.isFinal(position) && !FINAL_STATUSES.includes(run.status)) return;
		this.runs.set(position, { run, watched: watched || !!known?.watched });
	}
}

/** Batches are forgotten after a day, and at most this many are kept (the oldest go first). */
const MAX_BATCHES = 200;
const FORGET_AFTER_MS = 24 * 3600_000;
const memories = new Map<string, BatchMemory>();

export function batchMemoryOf(batchKey: string): BatchMemory {
	const now = Date.now();
	let memory = memories.get(batchKey);
	if (memory) memories.delete(batchKey);
	else memory = new BatchMemory();
	memory.touchedAt = now;
	memories.set(batchKey, memory);
	for (const [key, old] of memories) {
		if (memories.size <= MAX_BATCHES && now - old.touchedAt <= FORGET_AFTER_MS) break;
		memories.delete(key);
	}
	return memory;
}

/** Drops a batch once its execution has resumed for good. */
export function forgetBatchMemory(batchKey: string): void {
	memories.delete(batchKey);
}
