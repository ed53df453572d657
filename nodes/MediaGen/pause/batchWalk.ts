// Pause mode, on a delivery: this process's ledger of the batch, and sending what freed slots are owed, through the one
// send path. Runs are tied to items by ID or by the run a re-sent key returns uncharged, never by content.
import type { IWebhookFunctions } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { creditsOf, isSettled, ledgerItem, learnRun, refuse, type LedgerItem } from '../run/ledger';
import { mismatchOf, sendItem } from '../run/send';
import { paidRunsOf, withPaidRuns } from '../run/runErrors';
import { getRun, listRuns } from '../run/waitForRun';
import { pauseCapRefusal } from './pauseCap';
import { batchKeysOf, requestBodyOf, type PauseState } from './pauseState';

/**
 * What this n8n process knows of a paused batch between deliveries: its ledger. Only for speed: a process without it
 * learns each item's run exactly by re-sending its request key, which returns that run uncharged.
 */
export class BatchMemory {
	/** The ledger, by position in the batch. */
	readonly items: LedgerItem[];
	/** Runs this process sent: it will hear their deliveries (others are read). */
	readonly watched = new Set<number>();
	/** Items some call is sending right now (two calls never send the same item). */
	readonly sending = new Set<number>();
	/** This process knows every item sent so far (it paused the batch, or learnt them): any other was never sent. */
	complete = false;
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

	/** From the record saved at the pause; items it names no run or refusal for are `unsent` or `unknown`. */
	constructor(state: PauseState, pausing: boolean) {
		this.complete = pausing;
		this.items = state.items.map((entry) => {
			const key = String(entry.body.requestKey);
			const item = ledgerItem(entry.item, key, pausing ? 'unsent' : 'unknown');
			if (entry.firstKey) Object.assign(item, { firstKey: entry.firstKey, attempt: entry.attempt });
			if (entry.runId) {
				learnRun(item, {
					id: entry.runId,
					status: 'PENDING',
					createdAt: entry.createdAt ?? 0,
					cost: entry.cost,
				} as RunRecord);
				item.stale = true;
				item.earlier = entry.earlier;
			} else if (entry.refused) {
				item.state = entry.refused.mayBeCharged ? 'refusedAfterLost' : 'refused';
				item.failure = entry.refused;
			} else if (entry.lost) item.state = 'answerLost';
			return item;
		});
	}

	positionOf(runId: unknown): number | undefined {
		const position = this.items.findIndex((item) => item.run?.id === runId);
		return position < 0 ? undefined : position;
	}

	isFinal(position: number): boolean {
		return this.items[position]?.state === 'finished';
	}

	inFlight(): number {
		return this.items.filter((item, p) => this.sending.has(p) || item.state === 'running').length;
	}

	/** Records a run record, keeping the newest state (a final record is never replaced by an older one). */
	learn(position: number, run: RunRecord, watched: boolean): void {
		learnRun(this.items[position], run);
		if (watched) this.watched.add(position);
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

/** This process's memory of a paused batch (`pausing`: made by the process that pauses it, knowing every send). */
export function batchMemoryOf(state: PauseState, executionId: string, nodeName: string, pausing = false): BatchMemory {
	// Batches paused by older versions have no ID: named by their execution, node and pause time.
	const key = state.batchId ?? `${executionId}|${nodeName}|${state.pausedAt}`;
	const now = Date.now();
	const memory = memories.get(key) ?? new BatchMemory(state, pausing);
	memories.delete(key);
	memory.touchedAt = now;
	memories.set(key, memory);
	for (const [old, { touchedAt }] of memories) {
		if (memories.size <= MAX_BATCHES && now - touchedAt <= FORGET_AFTER_MS) break;
		memories.delete(old);
	}
	return memory;
}

interface BatchReport {
	/** The ledger as the output reads it: an item being sent by another call may yet be made and charged. */
	items: LedgerItem[];
	/** Every item has an outcome that will not change. */
	complete: boolean;
	inFlight: number;
}

export function reportOf(memory: BatchMemory): BatchReport {
	const items = memory.items.map((item, p) =>
		memory.sending.has(p) && !item.run ? { ...item, state: 'answerLost' as const } : item,
	);
	return { items, complete: items.every(isSettled), inFlight: memory.inFlight() };
}

/** Names in `error` what the batch's items were or may have been charged for, with the advice to send them again. */
export function withBatchPaidRuns<E>(error: E, state: PauseState, items: LedgerItem[]): E {
	return withPaidRuns(error, paidRunsOf(items), [], batchKeysOf(state));
}

/** A webhook call answers within seconds: its requests never wait out a long Retry-After. */
const CALL_BUDGET_MS = 5_000;
/** Pages of 100 runs read, at most, to see what was made since the pause (confirmUnsent). */
const LIST_PAGES = 20;
const CLOCK_SKEW_MS = 60_000;
/** Request keys re-sent per call to learn runs this process has not seen (each counts as a submission). */
const LEARN_PER_CALL = 10;

/** One batch as one call sees it: the record saved before the pause, this process's ledger and the service. */
export class BatchWalk {
	/** When this call's requests must be done by: a few seconds, renewed once the delivery is answered. */
	private callDeadline = Date.now() + CALL_BUDGET_MS;
	/** Service clock: a run made before this execution's first new run (or well before the pause) was paid before. */
	private readonly firstNewRun: number;

	constructor(
		private readonly ctx: IWebhookFunctions,
		readonly state: PauseState,
		readonly memory: BatchMemory,
	) {
		const made = state.items.flatMap((e) => (e.runId && !e.earlier && e.createdAt ? [e.createdAt] : []));
		this.firstNewRun = made.length ? Math.min(...made) : state.pausedAt - CLOCK_SKEW_MS;
	}

	renewBudget(): void {
		this.callDeadline = Date.now() + CALL_BUDGET_MS;
	}

	/** A resume call's tries: within its few seconds, never waiting for a slot (a later delivery frees one). */
	private limits(): Parameters<typeof sendItem>[3] {
		const isEarlier = (run: RunRecord) => run.createdAt < this.firstNewRun;
		return {
			deadline: Math.min(this.callDeadline, this.state.deadline),
			waitForSlot: false,
			pollIntervalMs: 1000,
			retryTransient: 1,
			movesOn: isEarlier,
			isEarlier,
		};
	}

	/** Sends an item with its key (the run that key made, or a new one); false when a later call must try again. */
	private async send(position: number, watched: boolean): Promise<boolean> {
		const item = this.memory.items[position];
		await sendItem(this.ctx, item, requestBodyOf(this.state, position), this.limits());
		if (item.run && watched) this.memory.watched.add(position);
		return isSettled(item) || item.state === 'running';
	}

	private readonly costOf = (position: number): number | undefined => {
		const item = this.memory.items[position];
		const entry = this.state.items[position];
		// A run an earlier execution made with this key was charged then: it costs this step nothing.
		if (entry.earlier && item.run) return 0;
		return creditsOf(item, entry.price);
	};

	/** Not yet known to be sent, but another process may have sent it, or a call here is sending it. */
	private readonly mayBeSent = (position: number): boolean =>
		this.memory.items[position].state === 'unknown' || this.memory.sending.has(position);

	private isKnown(position: number): boolean {
		const item = this.memory.items[position];
		return isSettled(item) || item.state === 'running' || this.memory.sending.has(position);
	}

	/**
	 * Sends the items not known to be sent, in input order, one at a time, each checked against the cap on the costs
	 * of all before it. `learning`: this process has not seen every submission, so re-sends the keys after those it
	 * knows; a busy answer leaves the item unknown (the pausing process may still be sending it). Else only while
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
			const item = this.memory.items[position];
			const overCap = item.state !== 'answerLost' && pauseCapRefusal(this.state, position, this.costOf, this.mayBeSent);
			// Another process may have sent an unknown item (its key would bring its run back, free): left unknown, it
			// comes out with its key, never as refused with nothing charged.
			if (overCap && item.state === 'unknown') continue;
			if (overCap) {
				refuse(item, overCap);
				item.cappedHere = true;
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
		for (const [position, item] of this.memory.items.entries()) {
			if (item.state !== 'running' || (this.memory.watched.has(position) && !evenWatched)) continue;
			if (Date.now() >= this.callDeadline) return;
			try {
				this.memory.learn(
					position,
					await getRun(this.ctx, item.run!.id, item.itemIndex, undefined, this.callDeadline, 1),
					false,
				);
			} catch {
				// read again on a later call
			}
		}
	}

	/**
	 * Before the output says an item was never sent, or refused here for want of credits or by the cap (nothing
	 * charged): another process may have sent it (after a refund freed credits, or knowing other runs' costs). An item
	 * with a run of its request made since the pause that no item owns, or any if the list cannot be read in full, may
	 * have.
	 */
	async confirmUnsent(): Promise<BatchReport> {
		const refusedHere = (item: LedgerItem, p: number) =>
			item.state === 'refused' && !this.state.items[p].refused && (item.outOfCredits || item.cappedHere);
		const unsent = this.memory.items.flatMap((item, p) => (item.state === 'unsent' || refusedHere(item, p) ? [p] : []));
		if (!unsent.length) return reportOf(this.memory);
		const owned = new Set(this.memory.items.flatMap((item) => (item.run ? [item.run.id] : [])));
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
			if (!full || strangers.some((run) => !mismatchOf(run, body).length))
				this.memory.items[position].state = 'unknown';
		}
		return reportOf(this.memory);
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
		return reportOf(this.memory);
	}
}
