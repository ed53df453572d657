// Pause mode, on a delivery: what this process knows of the batch, where each item stands, and sending what freed slots
// are owed. Runs are tied to items by ID or by the run a re-sent key returns uncharged, never by content.
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { generationAnswerProblem } from '../../shared/responseChecks';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import { apiRequest, isBusySubmission, isLostAnswer, isOutOfCredits, isTransientFailure } from '../../shared/transport';
import { paidRunsOf, refusalOf, withPaidRuns, type ItemCharge, type Refusal } from '../run/runErrors';
import { getRun, listRuns } from '../run/waitForRun';
import { keyTakenError, mismatchOf } from '../run/submission';
import { pauseCapRefusal } from './pauseCap';
import { batchKeysOf, requestBodyOf, type PauseState } from './pauseState';

interface KnownRun {
	run: RunRecord;
	/** This process will hear the run's delivery (it sent the run); other runs are read. */
	watched: boolean;
	/** The status recorded at the pause, not delivered or read since: it may be out of date. */
	stale?: boolean;
}

/**
 * What this n8n process has learnt about a paused batch between deliveries. Only for speed: a process without it
 * learns each item's run exactly by re-sending its request key, which returns that run uncharged.
 */
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
	/** Refused here for want of credits (402): after a refund another process may send the key and be charged. */
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
 * Per process (webhook processes, a restart: each has its own), each batch forgotten a day after its last call. Safe
 * with several: a process that lacks an item re-sends its key, and lists the runs made since the pause before an
 * output says "nothing charged" (BatchWalk.confirmUnsent).
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

/** `stale`: the status recorded at the pause, not read since; `unconfirmed`: this process cannot tell it was sent. */
export type Outcome =
	| { position: number; kind: 'finished' | 'running'; run: RunRecord; stale?: boolean }
	| ({ position: number; kind: 'refused' } & Refusal)
	| { position: number; kind: 'unsent' | 'unconfirmed' | 'unanswered'; refusedForCredits?: true };

export interface BatchReport {
	outcomes: Outcome[];
	/** Every item has an outcome that will not change. */
	complete: boolean;
	inFlight: number;
}

export function reportOf(state: PauseState, memory: BatchMemory): BatchReport {
	const outcomes = state.items.map((entry, position): Outcome => {
		const refusal = entry.refused ?? memory.refused.get(position);
		if (refusal) return { position, kind: 'refused', ...refusal };
		const known = memory.runs.get(position);
		if (known) {
			const final = FINAL_STATUSES.includes(known.run.status);
			const stale = known.stale && !final ? { stale: true } : {};
			return { position, kind: final ? 'finished' : 'running', run: known.run, ...stale };
		}
		// Being sent by another call counts as sent: its answer may yet say it was made and charged.
		if (memory.unanswered.has(position) || memory.sending.has(position)) return { position, kind: 'unanswered' };
		const kind = memory.complete && !memory.maybeSent.has(position) ? 'unsent' : 'unconfirmed';
		return { position, kind, ...(memory.refusedForCredits.has(position) ? { refusedForCredits: true } : {}) };
	});
	return {
		outcomes,
		complete: outcomes.every((o) => o.kind === 'finished' || o.kind === 'refused'),
		inFlight: memory.inFlight(),
	};
}

/** What finds an item's charge, from its outcome. */
export function chargeOf(state: PauseState, o: Outcome): ItemCharge {
	const entry = state.items[o.position];
	return {
		itemIndex: entry.item,
		requestKey: String(entry.body.requestKey),
		...('run' in o ? { run: o.run, stale: o.stale } : {}),
		unanswered: o.kind === 'unanswered' || (o.kind === 'refused' && o.mayBeCharged),
		unconfirmed: o.kind === 'unconfirmed',
	};
}

/** Names in `error` what `outcomes` were or may have been charged for, with the advice to send their keys again. */
export function withBatchPaidRuns<E>(error: E, state: PauseState, outcomes: Outcome[]): E {
	return withPaidRuns(error, paidRunsOf(outcomes.map((o) => chargeOf(state, o))), [], batchKeysOf(state));
}

/** A webhook call answers within seconds: its requests never wait out a long Retry-After. */
const CALL_BUDGET_MS = 5_000;
/** Pages of 100 runs read, at most, to see what was made since the pause (confirmUnsent). */
const LIST_PAGES = 20;
const CLOCK_SKEW_MS = 60_000;
/** Request keys re-sent per call to learn runs this process has not seen (each counts as a submission). */
const LEARN_PER_CALL = 10;

/** One batch as one call sees it: the record saved before the pause, this process's memory and the service. */
export class BatchWalk {
	/** When this call's requests must be done by: a few seconds, renewed once the delivery is answered. */
	private callDeadline = Date.now() + CALL_BUDGET_MS;
	/** When this execution's first new run was made (service clock): an older one a key brings back was paid before. */
	private readonly firstNewRun: number;

	constructor(
		private readonly ctx: IWebhookFunctions,
		readonly state: PauseState,
		readonly memory: BatchMemory,
	) {
		const made = state.items.flatMap((e) => (e.runId && !e.earlier && e.createdAt ? [e.createdAt] : []));
		this.firstNewRun = made.length ? Math.min(...made) : -Infinity;
	}

	renewBudget(): void {
		this.callDeadline = Date.now() + CALL_BUDGET_MS;
	}

	/**
	 * Sends an item with its key (the run that key made, or a new one) and records its run or refusal; false when a
	 * later call must try again (slots busy, or a passing failure twice). A lost answer keeps the item unanswered
	 * (maybe charged) until an answer says what its key made: a busy answer or refusal after it does not show none.
	 */
	private async send(position: number, watched: boolean): Promise<boolean> {
		const { item } = this.state.items[position];
		const body = requestBodyOf(this.state, position);
		let lost = false;
		for (let tries = 1; ; tries++) {
			try {
				const res = await apiRequest<{ generation: RunRecord }>(this.ctx, {
					method: 'POST',
					path: '/generations',
					body,
					itemIndex: item,
					deadline: this.callDeadline,
					expect: generationAnswerProblem,
				});
				this.memory.unanswered.delete(position);
				// A typed key used before for another request brings that run back: refused, as in Poll.
				const run = res.body.generation;
				const taken = keyTakenError(this.ctx, run, body, item);
				if (taken) this.memory.refused.set(position, refusalOf(taken));
				else this.memory.learn(position, run, watched);
				if (run.createdAt < this.firstNewRun) this.memory.earlier.add(position);
				return true;
			} catch (error) {
				if (isBusySubmission(error)) return false;
				if (!isTransientFailure(error)) {
					const mayBeCharged = this.memory.unanswered.delete(position) ? { mayBeCharged: true as const } : {};
					this.memory.refused.set(position, { ...refusalOf(error), ...mayBeCharged });
					if (isOutOfCredits(error)) this.memory.refusedForCredits.add(position);
					return true;
				}
				lost ||= isLostAnswer(error);
				if (tries >= 2 || Date.now() + 1000 > this.callDeadline) {
					if (lost) this.memory.unanswered.add(position);
					return false;
				}
				await sleep(1000);
			}
		}
	}

	private readonly costOf = (position: number): number | undefined => {
		const known = this.memory.runs.get(position);
		if (!known) return undefined;
		// A run an earlier execution made with this key was charged then: it costs this step nothing.
		if (this.state.items[position].earlier || this.memory.earlier.has(position)) return 0;
		const cost = Number(known.run.cost);
		return Number.isFinite(cost) ? cost : (this.state.items[position].price ?? 0);
	};

	private isKnown(position: number): boolean {
		const { memory } = this;
		const settled = !!this.state.items[position].refused || memory.refused.has(position);
		return settled || memory.runs.has(position) || memory.sending.has(position);
	}

	/**
	 * Sends the items not known to be sent, in input order, one at a time, each checked against the cap on the costs
	 * of all before it. `learning`: this process has not seen every submission, so re-sends the keys after those it
	 * knows; a busy answer leaves the item unconfirmed (the pausing process may still be sending it). Else only while
	 * slots are free and no other call is sending. True when it stopped before the end.
	 */
	private async sendUnknown(learning: boolean): Promise<boolean> {
		if (!learning && this.memory.sending.size > 0) return true;
		let budget = LEARN_PER_CALL;
		for (let position = 0; position < this.state.items.length; position++) {
			if (this.isKnown(position)) continue;
			// Past the time limit nothing may be submitted, and a re-sent key of a never-sent item would be.
			if (Date.now() > this.state.deadline) return true;
			if (learning ? budget-- <= 0 : this.memory.inFlight() >= this.state.lanes) return true;
			const overCap = !this.memory.unanswered.has(position) && pauseCapRefusal(this.state, position, this.costOf);
			if (overCap) {
				this.memory.refused.set(position, overCap);
				continue;
			}
			if (!learning) this.memory.sending.add(position);
			const sent = await this.send(position, !learning).finally(() => learning || this.memory.sending.delete(position));
			if (!sent) return true;
		}
		if (learning) this.memory.complete = true;
		return false;
	}

	/** Reads runs not final that this process will not hear about, or (`evenWatched`, past the limit) all of them. */
	async readUnfinished(evenWatched = false): Promise<void> {
		for (const [position, known] of [...this.memory.runs.entries()]) {
			if ((known.watched && !evenWatched) || this.memory.isFinal(position) || Date.now() >= this.callDeadline) continue;
			try {
				const { item } = this.state.items[position];
				this.memory.learn(position, await getRun(this.ctx, known.run.id, item, undefined, this.callDeadline, 1), false);
			} catch {
				// read again on a later call
			}
		}
	}

	/**
	 * Before the output says an item was never sent, or refused for want of credits (nothing charged): another process
	 * may have sent it (after a refund freed credits, the same key may have made a run there). An item with a run of
	 * its request made since the pause that no item owns, or any if the list cannot be read in full, may have.
	 */
	async confirmUnsent(report: BatchReport): Promise<BatchReport> {
		const { memory } = this;
		const refusedForCredits = (o: Outcome) =>
			o.kind === 'refused' && !this.state.items[o.position].refused && memory.refusedForCredits.has(o.position);
		const unsent = report.outcomes.filter((o) => o.kind === 'unsent' || refusedForCredits(o)).map((o) => o.position);
		if (!unsent.length) return report;
		const maybeSent = (position: number) => {
			memory.refused.delete(position);
			memory.maybeSent.add(position);
		};
		const owned = new Set([...this.memory.runs.values()].map((known) => known.run.id));
		// On the service's clock: from the first run sent before the pause, else a minute before the pause (n8n's).
		const made = this.state.items.flatMap((entry) => (entry.createdAt ? [entry.createdAt] : []));
		const from = made.length ? Math.min(...made) : this.state.pausedAt - CLOCK_SKEW_MS;
		const listed: RunRecord[] = [];
		const full = await listRuns(this.ctx, listed, LIST_PAGES, {
			since: from,
			deadline: this.callDeadline,
			retryTransient: 1,
		}).catch(() => false);
		const strangers = listed.filter((run) => run.createdAt >= from && !owned.has(run.id));
		for (const position of unsent) {
			const { body } = this.state.items[position];
			if (!full || strangers.some((run) => !mismatchOf(run, body).length)) maybeSent(position);
		}
		return reportOf(this.state, this.memory);
	}

	/** Moves the batch on as far as this call can, and says where every item stands. */
	async walk(): Promise<BatchReport> {
		let stopped = false;
		if (!this.memory.complete) {
			this.memory.learning ??= this.sendUnknown(true).finally(() => (this.memory.learning = undefined));
			stopped = await this.memory.learning;
		}
		await this.readUnfinished();
		if (this.memory.complete && !stopped) await this.sendUnknown(false);
		return reportOf(this.state, this.memory);
	}
}
