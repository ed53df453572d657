// Pause mode, on a delivery: learns from the service where each lane of the batch stands, and submits
// the next run of a lane whose run has finished. Nothing is remembered between deliveries (n8n saves
// nothing a resume webhook does), so each call works from the recorded batch and the service alone:
// a run submitted before the pause is read by its id; a later one is found by sending its request
// again with the same request key, which returns the run instead of charging again. Item p + lanes
// is only ever sent once item p's run has finished, so no lane has two runs in flight.
import type { IWebhookFunctions } from 'n8n-workflow';

import { apiRequest, isNoAnswer, MediaGenApiError, type Identity } from '../transport';
import { generationAnswerProblem } from '../transport/answers';
import { FINAL_STATUSES, type RunRecord } from '../helpers/catalogueTypes';
import { laneStarts, nextInLane, type PauseState } from '../helpers/pauseState';
import { getRun } from '../helpers/waitForRun';

export type Outcome =
	| { position: number; kind: 'finished'; run: RunRecord }
	| { position: number; kind: 'running'; run: RunRecord }
	| { position: number; kind: 'refused'; message: string; description?: string }
	| { position: number; kind: 'unsent' }
	/** The service has no free slot or is briefly unreachable: the delivery should come again later. */
	| { position: number; kind: 'later'; reason: string };

function isBusyOrPassing(error: unknown): boolean {
	if (isNoAnswer(error)) return true;
	if (!(error instanceof MediaGenApiError)) return false;
	const status = Number(error.httpCode);
	return error.code === 'busy' || status === 429 || status >= 500 || error.code === 'unexpected_answer';
}

/** POST /generations with the item's request key: the run it made before, or a new one. */
async function sendOrFind(ctx: IWebhookFunctions, identity: Identity, state: PauseState, position: number) {
	const res = await apiRequest<{ generation: RunRecord }>(
		ctx,
		{ method: 'POST', path: '/generations', body: state.items[position].body, retryTransient: 1, expect: generationAnswerProblem },
		identity,
	);
	return res.body.generation;
}

/** Where one item stands; `known` is a run record the caller already has (the delivered one). */
async function outcomeOf(
	ctx: IWebhookFunctions,
	identity: Identity,
	state: PauseState,
	position: number,
	known: Map<number, RunRecord>,
): Promise<Outcome> {
	const entry = state.items[position];
	if (entry.refused) return { position, kind: 'refused', ...entry.refused };
	let run = known.get(position);
	try {
		run ??= entry.runId ? await getRun(ctx, identity, entry.runId, entry.item) : await sendOrFind(ctx, identity, state, position);
	} catch (error) {
		if (isBusyOrPassing(error)) return { position, kind: 'later', reason: String((error as Error).message) };
		const e = error as { message?: string; description?: string | null };
		return { position, kind: 'refused', message: String(e.message), ...(e.description ? { description: e.description } : {}) };
	}
	known.set(position, run);
	return { position, kind: FINAL_STATUSES.includes(run.status) ? 'finished' : 'running', run };
}

/**
 * After item p's run finished: sends the next item of p's lane (skipping refused ones and runs that
 * already finished). Returns why to try again later when the service had no free slot.
 */
export async function advanceLane(
	ctx: IWebhookFunctions,
	identity: Identity,
	state: PauseState,
	position: number,
	known: Map<number, RunRecord>,
): Promise<string | undefined> {
	for (let q = nextInLane(state, position); q !== undefined; q = nextInLane(state, q)) {
		const outcome = await outcomeOf(ctx, identity, state, q, known);
		if (outcome.kind === 'later') return outcome.reason;
		if (outcome.kind === 'running') return undefined;
	}
	return undefined;
}

export interface LaneReport {
	outcomes: Outcome[];
	/** Every item has an outcome that will not change. */
	complete: boolean;
	/** Set when the service could not be asked now: the delivery should come again later. */
	later?: string;
}

/**
 * Walks every lane from its start while runs are finished. With `stopEarly`, stops at the first lane
 * still under way (nothing more is needed to know the batch is not done).
 */
export async function walkLanes(
	ctx: IWebhookFunctions,
	identity: Identity,
	state: PauseState,
	known: Map<number, RunRecord>,
	stopEarly: boolean,
): Promise<LaneReport> {
	const outcomes: Outcome[] = [];
	let complete = true;
	for (const start of laneStarts(state)) {
		let q: number | undefined = start;
		for (; q !== undefined; q = nextInLane(state, q)) {
			const outcome = await outcomeOf(ctx, identity, state, q, known);
			if (outcome.kind === 'later') return { outcomes, complete: false, later: outcome.reason };
			outcomes.push(outcome);
			if (outcome.kind === 'running') break;
		}
		if (q === undefined) continue;
		complete = false;
		if (stopEarly) return { outcomes, complete };
		for (let rest = nextInLane(state, q); rest !== undefined; rest = nextInLane(state, rest)) {
			outcomes.push({ position: rest, kind: 'unsent' });
		}
	}
	return { outcomes: outcomes.sort((a, b) => a.position - b.position), complete };
}
