// The one send path of both waiting modes: POST /generations with the item's request key, each try's outcome learnt
// by the ledger. A lost answer is sent again with the same key (it returns the run it made, uncharged), a key whose run
// comes back failed (refunded) moves on to -r2 …, busy is waited out only where the caller may wait.
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { generationAnswerProblem } from '../../shared/responseChecks';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import {
	apiRequest,
	isBusySubmission,
	isLostAnswer,
	isOutOfCredits,
	isTransientFailure,
	MediaGenApiError,
	sleepUnlessAborted,
} from '../../shared/transport';
import { MAX_FRESH_RUNS, retryKey } from './requestKey';
import { addRunDetails } from './runErrors';
import { learn, learnRun, refuse, type LedgerItem } from './ledger';
import type { RunSettings } from './runSettings';

/** What one try ended with, as the ledger learns it. */
type Outcome = Parameters<typeof learn>[1];

const LOST_ANSWER_PAUSE_MAX_MS = 10_000;
const BUSY_BACKOFF_MAX_MS = 15_000;

type Ctx = IExecuteFunctions | IWebhookFunctions;

/** Two option values that mean the same: 5 and "5", true and "true" (a look's options are free-form JSON). */
export function sameOptionValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';
	if (!scalar(a) || !scalar(b)) return JSON.stringify(a) === JSON.stringify(b);
	const numeric = (v: unknown) => typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !isNaN(+v));
	return numeric(a) && numeric(b) ? Number(a) === Number(b) : String(a) === String(b);
}

/** What differs between the request and the run its key returned, options by meaning (5 may come back as "5"). */
export function mismatchOf(run: RunRecord, body: IDataObject): string[] {
	const differs: string[] = [];
	if (run.model !== body.model) differs.push(`model (${run.model})`);
	if (run.prompt !== body.prompt) differs.push('prompt');
	const sent = (body.options ?? {}) as Record<string, unknown>;
	const used = (run.options ?? {}) as Record<string, unknown>;
	const changed = Object.keys(sent).filter((k) => used[k] !== undefined && !sameOptionValue(used[k], sent[k]));
	if (changed.length) differs.push(`options (${changed.join(', ')})`);
	return differs;
}

/**
 * The refusal when the run a request key brought back was made for another request. That run is not this step's:
 * its ID is named (`takenBy`), never counted against the cap or listed as paid by this step.
 */
export function keyTakenError(ctx: Ctx, run: RunRecord, body: IDataObject, itemIndex: number) {
	const differs = mismatchOf(run, body);
	if (!differs.length) return undefined;
	const key = String(body.requestKey);
	const error = new NodeOperationError(
		ctx.getNode(),
		`Request key "${key}" already belongs to run ${run.id}, made with another ${differs.join(' and ')}`,
		{
			description:
				'The service returns the first run for a repeated request key and charges nothing, so this item would ' +
				"get that run's file instead of a new one. Leave Request Key empty (the node then makes one per " +
				'execution and item), or use an expression that differs for every request, for example one built from ' +
				"the item's data.",
			itemIndex,
		},
	);
	return Object.assign(error, { context: { ...error.context, requestKey: key, takenBy: run.id } });
}

/** How long and how a caller lets an item be sent. */
interface SendLimits {
	/** No try starts after it. */
	deadline: number;
	/** A 409 busy is waited out (with backoff from `pollIntervalMs`); else the item is left for later. */
	waitForSlot: boolean;
	pollIntervalMs: number;
	requestTimeoutMs?: number;
	/** Tries the transport adds after a passing failure (it sends the same key again). */
	retryTransient: number;
	/** A run its key brought back failed is one an earlier try or execution made and was refunded: send the next key. */
	movesOn(run: RunRecord): boolean;
	/** The run its key brought back was made and paid for by an earlier execution. */
	isEarlier(run: RunRecord, lostBefore: boolean): boolean;
}

/** Poll's tries: the transport sends a passing failure once more; a run back FAILED at once was made earlier. */
export function pollLimits(settings: RunSettings, deadline: number): SendLimits {
	return {
		deadline,
		waitForSlot: true,
		pollIntervalMs: settings.pollIntervalMs,
		requestTimeoutMs: settings.requestTimeoutMs,
		retryTransient: 1,
		// A new run is never final at once: this one was made by an earlier try or execution (and refunded if failed).
		movesOn: () => true,
		isEarlier: (run, lostBefore) => !lostBefore && FINAL_STATUSES.includes(run.status),
	};
}

/** One try: the request sent once (and as many times more as the transport retries it), its outcome. */
async function sendOnce(ctx: Ctx, body: IDataObject, itemIndex: number, limits: SendLimits): Promise<Outcome> {
	try {
		const res = await apiRequest<{ generation: RunRecord }>(ctx, {
			method: 'POST',
			path: '/generations',
			body,
			retryTransient: limits.retryTransient,
			itemIndex,
			timeoutMs: limits.requestTimeoutMs,
			deadline: limits.deadline,
			expect: generationAnswerProblem,
		});
		return { run: res.body.generation, lostBefore: res.answerLostBefore };
	} catch (error) {
		// Not an answer (or its loss) but a cancelled execution or a credential that cannot be read: the caller's.
		if (!(error instanceof MediaGenApiError)) return await Promise.reject(error);
		const lostBefore = error.answerLostBefore;
		if (isBusySubmission(error)) return { busy: error, lostBefore };
		if (isLostAnswer(error)) return { noAnswer: error, lostBefore };
		if (isTransientFailure(error)) return { passing: error, lostBefore };
		return { refused: error, lostBefore, outOfCredits: isOutOfCredits(error) };
	}
}

/**
 * Sends the item (its ledger entry, body without the key) until an answer settles it or `limits` end the tries; the
 * ledger then says where it stands. A new key is never sent past the deadline: its run would be charged after the
 * item gave up on it. Throws only when the execution is cancelled.
 */
export async function sendItem(ctx: Ctx, item: LedgerItem, body: IDataObject, limits: SendLimits): Promise<void> {
	const signal = (ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	let lost = 0;
	let busy = 0;
	const wait = async (ms: number) =>
		await sleepUnlessAborted(ms, signal).catch((error: Error) => {
			throw addRunDetails(error, { requestKey: item.key });
		});
	while (Date.now() < limits.deadline) {
		const sent = { ...body, requestKey: item.key };
		const lostBeforeTry = item.state === 'answerLost';
		const outcome = await sendOnce(ctx, sent, item.itemIndex, limits);
		if ('run' in outcome) {
			const taken = keyTakenError(ctx, outcome.run, sent, item.itemIndex);
			if (taken) return refuse(item, taken);
			learnRun(item, outcome.run);
			item.earlier = limits.isEarlier(outcome.run, lostBeforeTry || !!outcome.lostBefore) || undefined;
			const attempt = (item.attempt ?? 1) + 1;
			const last = attempt > MAX_FRESH_RUNS || Date.now() >= limits.deadline;
			if (outcome.run.status !== 'FAILED' || !limits.movesOn(outcome.run) || last) return;
			// Refunded: the next key makes a new run.
			Object.assign(item, { key: retryKey(item.firstKey, attempt), attempt, state: 'unsent' });
			item.run = item.earlier = undefined;
			continue;
		}
		learn(item, outcome);
		if ('refused' in outcome) return;
		if ('busy' in outcome) {
			const pauseMs = Math.min(limits.pollIntervalMs * 1.5 ** busy, BUSY_BACKOFF_MAX_MS);
			// Every try counts against 20 submissions a minute: back off.
			if (!limits.waitForSlot || Date.now() + pauseMs > limits.deadline) return;
			busy++;
			await wait(pauseMs);
			continue;
		}
		// A passing failure with no lost answer before it says nothing was made: the caller decides when to try again.
		if ('passing' in outcome && item.state !== 'answerLost') return;
		lost++;
		const pauseMs = Math.min(1000 * 2 ** lost, LOST_ANSWER_PAUSE_MAX_MS, limits.deadline - Date.now());
		if (pauseMs <= 0) return;
		await wait(pauseMs);
	}
}
