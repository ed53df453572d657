// POST /generations with a request key, so nothing is charged twice: a lost answer is sent again with the same key
// until the time limit, a keyed run back FAILED (refunded) is followed by key-r2 …, a 409 busy is waited out.
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	apiRequest,
	isBusySubmission,
	isLostAnswer,
	isTransientFailure,
	MediaGenApiError,
	sleepUnlessAborted,
} from '../../shared/transport';
import { generationAnswerProblem } from '../../shared/responseChecks';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import { MAX_FRESH_RUNS, requestKeyAdvice, retryKey, type BatchKeys } from './requestKey';
import { addRunDetails, failureInBrief, runError } from './runErrors';
import type { RunSettings } from './runSettings';
import { itemDeadline, TIME_LIMIT_CODE, timeLimitMs } from './timeLimit';

const LOST_ANSWER_PAUSE_MAX_MS = 10_000;
const BUSY_BACKOFF_MAX_MS = 15_000;

export interface SubmitContext {
	ctx: IExecuteFunctions;
	settings: RunSettings;
	itemIndex: number;
	/** Epoch ms the item must be done by (its time limit counts from its start); else from now. */
	deadline?: number;
	batch?: BatchKeys; // for the advice to send them again; else this item's key alone
}

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

type Submission = Required<SubmitContext>; // defaults settled

function lostSubmissionError(s: Submission, body: IDataObject, tries: number, last: unknown) {
	const key = String(body.requestKey);
	// A lost answer's own description says what to check (more often a wrong Base URL or a proxy than a broken
	// service); a service answer is named by its code only, since its wording speaks of that one send.
	const hint = isLostAnswer(last) && last instanceof MediaGenApiError && last.description ? ` ${last.description}` : '';
	const description =
		`Its request key is ${key}. To get that run without paying again, run this step again with ` +
		`${requestKeyAdvice(s.batch)}: the service then returns the run it made for each key (or makes one if it ` +
		`made none) and charges nothing twice. Last problem: ${failureInBrief(last)}.${hint}`;
	const error = new NodeOperationError(
		s.ctx.getNode(),
		`No usable answer to the submission of this run after ${tries} tr${tries === 1 ? 'y' : 'ies'} within its time ` +
			'limit: the run may have started and been charged',
		{ description, itemIndex: s.itemIndex },
	);
	return addRunDetails(error, { requestKey: key, mayBeCharged: true });
}

/**
 * Runs an earlier execution made with this key, charged then: final at the first answer (a new run is still going),
 * no try unanswered before. Safe with several n8n processes: an entry dies with its record.
 */
const madeEarlier = new WeakSet<object>();

export function wasMadeEarlier(run: object): boolean {
	return madeEarlier.has(run);
}

/** One key: waits out 409 busy (if `waitForSlot`), sends again after lost answers, until the deadline. */
async function submitWithKey(s: Submission, body: IDataObject, waitForSlot: boolean): Promise<RunRecord> {
	const { deadline } = s;
	const signal = s.ctx.getExecutionCancelSignal();
	let tries = 0;
	let lost = 0;
	let busy = 0;
	for (;;) {
		tries++;
		try {
			const res = await apiRequest<{ generation: RunRecord }>(s.ctx, {
				method: 'POST',
				path: '/generations',
				body,
				// A repeated requestKey returns the first run, so re-sending a submission is safe.
				retryTransient: 1,
				itemIndex: s.itemIndex,
				timeoutMs: s.settings.requestTimeoutMs,
				deadline,
				expect: generationAnswerProblem,
			});
			const run = res.body.generation;
			if (lost === 0 && !res.answerLostBefore && FINAL_STATUSES.includes(run.status)) madeEarlier.add(run);
			return run;
		} catch (failure) {
			const requestKey = String(body.requestKey);
			if (signal?.aborted) throw addRunDetails(failure, { requestKey });
			// Busy: the account's slots are held by other runs. Back off: every try counts against 20 submissions a minute.
			const busyPause = Math.min(s.settings.pollIntervalMs * 1.5 ** busy, BUSY_BACKOFF_MAX_MS);
			if (isBusySubmission(failure) && waitForSlot && Date.now() + busyPause <= deadline) {
				busy++;
				await sleepUnlessAborted(busyPause, signal);
				continue;
			}
			const lostBefore = lost > 0 || (failure instanceof MediaGenApiError && failure.answerLostBefore);
			// After a lost answer, the run may exist (and be charged) whatever a later send gets: a passing failure
			// (5xx, 429) is sent again as a lost answer is, any other ends as unanswered, never as "nothing was charged".
			if (!isLostAnswer(failure) && !(lostBefore && isTransientFailure(failure))) {
				// Not waiting for a slot, a busy answer leaves the item for later: say whether it may have a run.
				if (isBusySubmission(failure) && !waitForSlot)
					throw addRunDetails(failure, { requestKey, ...(lostBefore ? { mayBeCharged: true } : {}) });
				if (lostBefore) throw lostSubmissionError(s, body, tries, failure);
				throw addRunDetails(failure, { requestKey });
			}
			lost++;
			const pauseMs = Math.min(1000 * 2 ** lost, LOST_ANSWER_PAUSE_MAX_MS, deadline - Date.now());
			if (pauseMs <= 0) throw lostSubmissionError(s, body, tries, failure);
			await sleepUnlessAborted(pauseMs, signal);
		}
	}
}

/** The error when the run a request key brought back was made for another prompt or model (Poll and pause mode). */
export function keyTakenError(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	body: IDataObject,
	itemIndex: number,
): NodeOperationError | undefined {
	const differs = mismatchOf(run, body);
	if (!differs.length) return undefined;
	const key = String(body.requestKey);
	return runError(
		ctx,
		run,
		`Request key "${key}" already belongs to run ${run.id}, made with another ${differs.join(' and ')}`,
		'The service returns the first run for a repeated request key and charges nothing, so this item would get ' +
			"that run's file instead of a new one. Leave Request Key empty (the node then makes one per execution and " +
			"item), or use an expression that differs for every request, for example one built from the item's data.",
		itemIndex,
		key,
	);
}

/**
 * Submits the run for one item and returns its record; `body.requestKey` becomes the key used (-r2 … after refunded
 * failures). `waitForSlot`: waits while every run slot is busy; else a 409 busy is thrown (pause/pauseRuns.ts).
 */
export async function submitKeyed(s: SubmitContext, body: IDataObject, waitForSlot: boolean): Promise<RunRecord> {
	const firstKey = String(body.requestKey);
	const kind = String(body.kind);
	const deadline = s.deadline ?? itemDeadline(kind, s.settings.timeoutMs);
	const batch = s.batch ?? { inputCount: 1, items: [{ itemIndex: s.itemIndex, key: firstKey }] };
	let last: RunRecord | undefined;
	for (let attempt = 1; attempt <= MAX_FRESH_RUNS; attempt++) {
		// A new key is never sent past the deadline: its run would be charged after the item gave up on it.
		if (Date.now() >= deadline) {
			if (last) return last;
			// It waited (for the spending cap's turn or a run slot) until its deadline: it is not sent at all.
			const seconds = Math.round(timeLimitMs(kind, s.settings.timeoutMs) / 1000);
			const description =
				'Nothing was charged for it. Raise "Time Limit" under Waiting, or send fewer items at once: under Max ' +
				'Credits per Execution the runs are submitted one at a time.';
			const error = new NodeOperationError(
				s.ctx.getNode(),
				`Not submitted within its time limit (${seconds} seconds): it waited for earlier runs of this step`,
				{ description, itemIndex: s.itemIndex },
			);
			throw addRunDetails(error, { errorCode: TIME_LIMIT_CODE });
		}
		const sent = { ...body, requestKey: retryKey(firstKey, attempt) };
		const run = await submitWithKey({ ...s, deadline, batch }, sent, waitForSlot);
		const taken = keyTakenError(s.ctx, run, sent, s.itemIndex);
		if (taken) throw taken;
		body.requestKey = sent.requestKey;
		// A new run is never FAILED at once: this one was made by an earlier try and refunded.
		if (run.status !== 'FAILED') return run;
		last = run;
	}
	return last!;
}
