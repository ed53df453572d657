// Pause mode, on a delivery: learns from the service where every item stands, and submits the runs whose
// slots have come free. Nothing is remembered between deliveries (n8n saves nothing a resume webhook
// does), so each call works from the recorded batch and the service alone. Submissions are scarce (20 a
// minute), reads are not: runs are found in the newest-runs list (by id, or by their exact request), and
// only where that is ambiguous is a request sent again with its request key, which returns the run it
// made instead of charging again.
import type { IWebhookFunctions } from 'n8n-workflow';

import { apiRequest, isNoAnswer, MediaGenApiError, type Identity } from '../transport';
import { generationAnswerProblem, generationListProblem } from '../transport/answers';
import { FINAL_STATUSES, type RunRecord } from '../helpers/catalogueTypes';
import type { PauseState } from '../helpers/pauseState';
import { mismatchOf } from '../helpers/submission';

export type Outcome =
	| { position: number; kind: 'finished'; run: RunRecord }
	| { position: number; kind: 'running'; run: RunRecord }
	| { position: number; kind: 'refused'; message: string; description?: string }
	| { position: number; kind: 'unsent' }
	/** The service has no free slot or is briefly unreachable: the delivery should come again later. */
	| { position: number; kind: 'later'; reason: string };

/** A webhook call answers within seconds: it never waits out a long Retry-After, it asks to be called again. */
const CALL_BUDGET_MS = 5_000;
const LIST_PAGES = 5;
/** Runs created this long before the pause still count as candidates (clocks differ a little). */
const CLOCK_SLACK_MS = 120_000;

function isBusyOrPassing(error: unknown): boolean {
	if (isNoAnswer(error)) return true;
	if (!(error instanceof MediaGenApiError)) return false;
	const status = Number(error.httpCode);
	return error.code === 'busy' || status === 429 || status >= 500 || error.code === 'unexpected_answer';
}

/** What the service knows of this batch: the newest runs, and the runs already tied to an item. */
export class BatchView {
	private readonly recent = new Map<string, RunRecord>();

	/** Position → run, from the record (runs sent before the pause), the delivery and the list. */
	readonly runs = new Map<number, RunRecord>();

	constructor(
		private readonly ctx: IWebhookFunctions,
		private readonly identity: Identity,
		private readonly state: PauseState,
	) {}

	private deadline(): number {
		return Date.now() + CALL_BUDGET_MS;
	}

	/** Reads the newest runs back to the pause (a few pages at most). */
	async readList(): Promise<void> {
		let before: number | null | undefined;
		for (let page = 0; page < LIST_PAGES; page++) {
			const res = await apiRequest<{ generations: RunRecord[]; next_before: number | null }>(
				this.ctx,
				{
					method: 'GET',
					path: '/generations',
					qs: before ? { limit: 100, before } : { limit: 100 },
					retryTransient: 1,
					deadline: this.deadline(),
					expect: generationListProblem,
				},
				this.identity,
			);
			for (const run of res.body.generations) this.recent.set(run.id, run);
			before = res.body.next_before;
			const oldest = res.body.generations[res.body.generations.length - 1];
			if (!before || !oldest || oldest.createdAt < this.state.pausedAt - CLOCK_SLACK_MS) return;
		}
	}

	/**
	 * Ties runs from the list to items sent after the pause, by their exact request. Items with the same
	 * request are interchangeable, so a group is tied when it has exactly as many candidates as items;
	 * otherwise (not sent yet, or someone else sent the same request) those items are asked for by key.
	 */
	matchList(): void {
		const tied = new Set([...this.runs.values()].map((r) => r.id));
		const groups = new Map<string, number[]>();
		this.state.items.forEach((entry, position) => {
			if (this.runs.has(position) || entry.refused) return;
			if (entry.runId) {
				const run = this.recent.get(entry.runId);
				if (run) this.runs.set(position, run);
				return;
			}
			const key = JSON.stringify([entry.body.model, entry.body.prompt, entry.body.options]);
			groups.set(key, [...(groups.get(key) ?? []), position]);
		});
		for (const positions of groups.values()) {
			const body = this.state.items[positions[0]].body;
			const candidates = [...this.recent.values()]
				.filter((r) => !tied.has(r.id) && r.createdAt >= this.state.pausedAt - CLOCK_SLACK_MS)
				.filter((r) => mismatchOf(r, body).length === 0)
				.sort((a, b) => a.createdAt - b.createdAt);
			if (candidates.length !== positions.length) continue;
			positions.forEach((position, i) => this.runs.set(position, candidates[i]));
		}
	}

	/** Sends the item's request with its key: the run it made before, or a new one. */
	private async sendOrFind(position: number): Promise<RunRecord> {
		const res = await apiRequest<{ generation: RunRecord }>(
			this.ctx,
			{
				method: 'POST',
				path: '/generations',
				body: this.state.items[position].body,
				retryTransient: 1,
				deadline: this.deadline(),
				expect: generationAnswerProblem,
			},
			this.identity,
		);
		return res.body.generation;
	}

	private async readRun(id: string, item: number): Promise<RunRecord> {
		const res = await apiRequest<{ generation: RunRecord }>(
			this.ctx,
			{
				method: 'GET',
				path: `/generations/${encodeURIComponent(id)}`,
				retryTransient: 1,
				itemIndex: item,
				deadline: this.deadline(),
				expect: generationAnswerProblem,
			},
			this.identity,
		);
		return res.body.generation;
	}

	/** Where one item stands; sends it if it was never sent (call it only when a slot is free for it). */
	async outcomeOf(position: number): Promise<Outcome> {
		const entry = this.state.items[position];
		if (entry.refused) return { position, kind: 'refused', ...entry.refused };
		let run = this.runs.get(position);
		try {
			run ??= entry.runId ? await this.readRun(entry.runId, entry.item) : await this.sendOrFind(position);
		} catch (error) {
			if (isBusyOrPassing(error)) return { position, kind: 'later', reason: String((error as Error).message) };
			const e = error as { message?: string; description?: string | null };
			return {
				position,
				kind: 'refused',
				message: String(e.message),
				...(e.description ? { description: e.description } : {}),
			};
		}
		this.runs.set(position, run);
		return { position, kind: FINAL_STATUSES.includes(run.status) ? 'finished' : 'running', run };
	}
}

export interface BatchReport {
	outcomes: Outcome[];
	/** Every item has an outcome that will not change. */
	complete: boolean;
	/** Set when the service could not be asked now: the delivery should come again later. */
	later?: string;
}

/**
 * Walks the batch in input order as one pool of `lanes` slots: an item is sent once a run before it has
 * finished and freed a slot, whatever its kind, so a short image follows a long video's neighbour at
 * once. Items are sent in order, so whether item q is owed follows from the items before it alone.
 */
export async function walkBatch(view: BatchView, state: PauseState): Promise<BatchReport> {
	const outcomes: Outcome[] = [];
	let sent = 0;
	let final = 0;
	for (let position = 0; position < state.items.length; position++) {
		const entry = state.items[position];
		const known = !!entry.runId || view.runs.has(position);
		if (!entry.refused && !known && sent - final >= state.lanes) {
			outcomes.push({ position, kind: 'unsent' });
			continue;
		}
		const outcome = await view.outcomeOf(position);
		if (outcome.kind === 'later') return { outcomes, complete: false, later: outcome.reason };
		outcomes.push(outcome);
		if (entry.refused) continue;
		sent++;
		if (outcome.kind !== 'running') final++;
	}
	return { outcomes, complete: outcomes.every((o) => o.kind === 'finished' || o.kind === 'refused') };
}
