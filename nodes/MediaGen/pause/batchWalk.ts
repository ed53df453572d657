// Pause mode, on a delivery: where every item of the batch stands, and the runs whose slots have come
// free. Runs are only ever tied to items exactly: by the run IDs recorded before the pause, by the item a
// delivery's URL names, by the answer to the submission this process made, or by re-sending the item's
// request key (the service returns that item's run uncharged). Never by content: identical requests in
// one batch, a re-run and a concurrent execution of the same batch all look alike in the runs list.
import type { IWebhookFunctions } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';
import { generationAnswerProblem } from '../../shared/responseChecks';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import type { PauseState } from './pauseState';
import type { BatchMemory } from './batchMemory';
import { pauseCapRefusal } from './pauseCap';
import { sendFromResumeCall, type ResumeCallSend } from './resumeSend';

export type Outcome =
	| { position: number; kind: 'finished'; run: RunRecord }
	| { position: number; kind: 'running'; run: RunRecord }
	| { position: number; kind: 'refused'; message: string; description?: string; mayBeCharged?: boolean }
	/**
	 * Never sent (exactly known), not known to this process once the time limit has passed, or sent with no
	 * answer ever reaching n8n (the run may have been made and charged).
	 */
	| { position: number; kind: 'unsent' | 'unconfirmed' | 'unanswered' };

export interface BatchReport {
	outcomes: Outcome[];
	/** Every item has an outcome that will not change. */
	complete: boolean;
	/** Runs of this batch still in flight, as far as this process knows. */
	inFlight: number;
	/** Items not sent yet (known exactly, or still to be learnt). */
	waiting: number;
	/** Why the service could not be asked everything now (it was busy, passing, or out of call time). */
	later?: string;
}

/** A webhook call answers within seconds: it never waits out a long Retry-After. */
const CALL_BUDGET_MS = 5_000;
/** Request keys re-sent per call to learn runs this process has not seen (each counts as a submission). */
const LEARN_PER_CALL = 10;

/** One batch as one call sees it: the record saved before the pause, this process's memory and the service. */
export class BatchWalk {
	private callEnds = Date.now() + CALL_BUDGET_MS;

	constructor(
		private readonly ctx: IWebhookFunctions,
		readonly state: PauseState,
		readonly memory: BatchMemory,
	) {
		// The runs sent before the pause are named by the record; their states come from deliveries or reads.
		state.items.forEach((entry, position) => {
			if (entry.runId && !memory.runs.has(position)) {
				const run = {
					id: entry.runId,
					status: 'PENDING',
					createdAt: entry.createdAt ?? 0,
					cost: entry.cost,
				} as RunRecord;
				memory.runs.set(position, { run, watched: false });
			}
		});
	}

	private deadline(): number {
		return this.callEnds;
	}

	/** Gives requests a fresh few seconds (a call that has already answered its delivery may go on). */
	renewBudget(): void {
		this.callEnds = Date.now() + CALL_BUDGET_MS;
	}

	/**
	 * Sends an item's request with its key: the run that key made before, or a new one. An item whose answer was
	 * lost stays unanswered (maybe charged) until an answer says what its key made.
	 */
	private async send(position: number): Promise<ResumeCallSend> {
		const { body, item } = this.state.items[position];
		const result = await sendFromResumeCall(this.ctx, body, item, this.deadline());
		const unanswered = this.memory.unanswered.has(position);
		if ('run' in result) this.memory.unanswered.delete(position);
		else if ('later' in result && result.lost) this.memory.unanswered.add(position);
		// After a lost answer, a refusal does not show the key made no run (resumeSend.ts): it may have been charged.
		else if ('refused' in result && unanswered) {
			this.memory.unanswered.delete(position);
			return { refused: { ...result.refused, mayBeCharged: true } };
		}
		return result;
	}

	/** The credits an item's run cost, when this process knows its run. */
	private readonly costOf = (position: number): number | undefined => {
		const known = this.memory.runs.get(position);
		if (!known) return undefined;
		const cost = Number(known.run.cost);
		return Number.isFinite(cost) ? cost : (this.state.items[position].price ?? 0);
	};

	/**
	 * The cap's word on sending an item now, on what the runs sent before it really cost (pauseCap.ts); a refused
	 * item is recorded as its outcome. An unanswered item was sent already: sending its key again costs nothing.
	 */
	private refusedByCap(position: number): boolean {
		if (this.memory.unanswered.has(position)) return false;
		const refusal = pauseCapRefusal(this.state, position, this.costOf);
		if (refusal) this.memory.refused.set(position, refusal);
		return !!refusal;
	}

	private async read(run: RunRecord, position: number): Promise<RunRecord | undefined> {
		try {
			const res = await apiRequest<{ generation: RunRecord }>(this.ctx, {
				method: 'GET',
				path: `/generations/${encodeURIComponent(run.id)}`,
				retryTransient: 1,
				itemIndex: this.state.items[position].item,
				deadline: this.deadline(),
				expect: generationAnswerProblem,
			});
			return res.body.generation;
		} catch {
			return undefined; // read again on a later call
		}
	}

	private isSettled(position: number): boolean {
		return !!this.state.items[position].refused || this.memory.refused.has(position);
	}

	private isKnown(position: number): boolean {
		return this.isSettled(position) || this.memory.runs.has(position) || this.memory.sending.has(position);
	}

	/**
	 * A process that has not seen every submission (restarted, or another webhook process) learns the items
	 * after those it knows by re-sending their keys in input order: the service returns a key's run, or makes it.
	 * A busy answer does not show the key made no run: the process that sent the batch may still be sending it.
	 * So the item stays unconfirmed, and a later call sends its key again once a slot is free.
	 */
	private async learnUnknown(): Promise<string | undefined> {
		let budget = LEARN_PER_CALL;
		for (let position = 0; position < this.state.items.length; position++) {
			if (this.isKnown(position)) continue;
			// Past the time limit nothing may be submitted, and a re-sent key of a never-sent item would be.
			if (budget-- <= 0 || Date.now() > this.state.deadline) return 'still learning which runs were sent';
			// Decided as the process that sent the batch decided it, on the same costs: refused now, never sent.
			if (this.refusedByCap(position)) continue;
			const result = await this.send(position);
			if ('later' in result) return result.later;
			if ('busy' in result) return 'the service was busy, so which runs were sent is still being learnt';
			if ('refused' in result) this.memory.refused.set(position, result.refused);
			else this.memory.learn(position, result.run, false);
		}
		this.memory.complete = true;
		return undefined;
	}

	/**
	 * Reads runs not final yet: those this process will not hear about (it did not send them), or, once the
	 * time limit has passed, all of them, so the output says where each stands.
	 */
	async readUnfinished(evenWatched = false): Promise<void> {
		for (const [position, known] of [...this.memory.runs.entries()]) {
			if ((known.watched && !evenWatched) || this.memory.isFinal(position) || Date.now() >= this.callEnds) continue;
			const run = await this.read(known.run, position);
			if (run) this.memory.learn(position, run, false);
		}
	}

	/**
	 * Sends the next unsent items in input order while fewer runs than the slots are in flight, one at a time: each
	 * is checked against the cap on the real costs of all sent before it, so no two go out at once (another call
	 * sending now carries on with the slots this call freed). An unanswered item is sent again first; nothing
	 * after it goes out before its key's answer says what it cost.
	 */
	private async sendOwed(): Promise<string | undefined> {
		if (this.memory.sending.size > 0) return undefined;
		for (let position = 0; position < this.state.items.length; position++) {
			if (this.isKnown(position)) continue;
			if (this.memory.inFlight() >= this.state.lanes || Date.now() > this.state.deadline) return undefined;
			if (this.refusedByCap(position)) continue;
			this.memory.sending.add(position);
			const result = await this.send(position).finally(() => this.memory.sending.delete(position));
			if ('later' in result) return result.later;
			// The slot went to another batch on the account: the next delivery of this batch tries again.
			if ('busy' in result) return undefined;
			if ('refused' in result) this.memory.refused.set(position, result.refused);
			else this.memory.learn(position, result.run, true);
		}
		return undefined;
	}

	/** Moves the batch on as far as this call can, and says where every item stands. */
	async walk(): Promise<BatchReport> {
		let later: string | undefined;
		if (!this.memory.complete) {
			this.memory.learning ??= this.learnUnknown().finally(() => (this.memory.learning = undefined));
			later = await this.memory.learning;
		}
		await this.readUnfinished();
		if (this.memory.complete && !later) later = await this.sendOwed();
		return { ...this.report(), ...(later ? { later } : {}) };
	}

	report(): BatchReport {
		const outcomes: Outcome[] = this.state.items.map((entry, position): Outcome => {
			const refusal = entry.refused ?? this.memory.refused.get(position);
			if (refusal) return { position, kind: 'refused', ...refusal };
			const known = this.memory.runs.get(position);
			if (known) {
				const final = FINAL_STATUSES.includes(known.run.status);
				return { position, kind: final ? 'finished' : 'running', run: known.run };
			}
			// Being sent by another call right now counts as sent: its answer may yet say it was made and charged.
			if (this.memory.unanswered.has(position) || this.memory.sending.has(position))
				return { position, kind: 'unanswered' };
			return { position, kind: this.memory.complete ? 'unsent' : 'unconfirmed' };
		});
		return {
			outcomes,
			complete: outcomes.every((o) => o.kind === 'finished' || o.kind === 'refused'),
			inFlight: this.memory.inFlight(),
			waiting: outcomes.filter((o) => o.kind === 'unsent' || o.kind === 'unconfirmed' || o.kind === 'unanswered')
				.length,
		};
	}
}
