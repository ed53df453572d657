// Reading runs (GET /generations/{id}, GET /generations). Reads are safe to repeat: lost answers, 5xx, 429 and even a
// 404 are waited through with backoff until the time limit, so a short outage never loses a paid run.
import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, isRetryableRead, sleepUnlessAborted, type ApiContext } from '../../shared/transport';
import { generationAnswerProblem, generationListProblem } from '../../shared/responseChecks';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import { addRunDetails, detailsOfRun, failureInBrief, runError } from './runErrors';
import { itemDeadline, TIME_LIMIT_CODE, timeLimitMs } from './timeLimit';

const MAX_BACKOFF_MS = 15_000;

interface WaitSettings {
	pollIntervalMs: number;
	/** 0 or undefined: the spec's suggestion for the run's kind. */
	timeoutMs?: number;
	requestTimeoutMs?: number;
	/** Epoch ms the whole item must be done by (submission included); else now plus the time limit. */
	deadline?: number;
}

/** GET /generations/{id}, with `retryTransient` tries more after a passing failure. */
export async function getRun(
	ctx: ApiContext,
	runId: string,
	itemIndex: number,
	requestTimeoutMs?: number,
	deadline?: number,
	retryTransient = 3,
): Promise<RunRecord> {
	const res = await apiRequest<{ generation: RunRecord }>(ctx, {
		method: 'GET',
		path: `/generations/${encodeURIComponent(runId)}`,
		retryTransient,
		itemIndex,
		timeoutMs: requestTimeoutMs,
		deadline,
		expect: generationAnswerProblem,
	});
	return res.body.generation;
}

/**
 * GET /generations, newest first, into `runs` (a failed page keeps what came before), at most `pages` pages or until
 * a run older than `since`. True when it reached that run or the last page.
 */
export async function listRuns(
	ctx: ApiContext,
	runs: RunRecord[],
	pages: number,
	read: { since?: number; deadline?: number; retryTransient: number },
): Promise<boolean> {
	let before: number | null | undefined;
	for (let page = 0; page < pages; page++) {
		const res = await apiRequest<{ generations: RunRecord[]; next_before: number | null }>(ctx, {
			method: 'GET',
			path: '/generations',
			qs: before ? { limit: 100, before } : { limit: 100 },
			retryTransient: read.retryTransient,
			deadline: read.deadline,
			expect: generationListProblem,
		});
		runs.push(...(res.body.generations ?? []));
		before = res.body.next_before;
		if (!before || (read.since !== undefined && runs.some((run) => run.createdAt < read.since!))) return true;
	}
	return false;
}

/** Reads the run every Check Every until final (QUEUED and unknown statuses are running); errors name `requestKey`. */
export async function waitForRun(
	ctx: IExecuteFunctions,
	first: RunRecord,
	settings: WaitSettings,
	itemIndex: number,
	requestKey?: string,
): Promise<RunRecord> {
	const signal = ctx.getExecutionCancelSignal();
	const limitMs = timeLimitMs(first.kind, settings.timeoutMs);
	const deadline = settings.deadline ?? itemDeadline(first.kind, settings.timeoutMs);
	let run = first;
	let misses = 0;
	// Reads are an interval apart from when each was sent, the first an interval after the run was last seen.
	let lastReadAt = Date.now();
	let lastProblem = '';
	while (!FINAL_STATUSES.includes(run.status)) {
		const pauseMs = misses
			? Math.min(settings.pollIntervalMs * 2 ** misses, MAX_BACKOFF_MS)
			: lastReadAt + settings.pollIntervalMs - Date.now();
		if (Date.now() + Math.min(pauseMs, 1000) > deadline) {
			const seen = lastProblem ? ` The last read failed: ${lastProblem}.` : '';
			const late = runError(
				ctx,
				run,
				`Run ${run.id} did not finish within ${Math.round(limitMs / 1000)} seconds (last status ${run.status})`,
				'The run keeps going on the service and is charged; if it fails, its credits are refunded.' +
					`${seen} Use Generation → Wait with run ID ${run.id} to pick it up later, ` +
					'or raise "Time Limit" under Waiting.',
				itemIndex,
				requestKey,
			);
			throw addRunDetails(late, { errorCode: TIME_LIMIT_CODE });
		}
		await sleepUnlessAborted(Math.max(0, Math.min(pauseMs, deadline - Date.now())), signal);
		if (signal?.aborted) {
			const message = `Stopped waiting for run ${run.id}: the execution was cancelled`;
			const description = `The run keeps going on the service. Pick it up with Generation → Wait, run ID ${run.id}.`;
			throw runError(ctx, run, message, description, itemIndex, requestKey);
		}
		lastReadAt = Date.now();
		try {
			run = await getRun(ctx, run.id, itemIndex, settings.requestTimeoutMs, deadline);
			misses = 0;
		} catch (error) {
			if (!isRetryableRead(error)) throw addRunDetails(error, detailsOfRun(run, requestKey));
			misses++;
			lastProblem = failureInBrief(error);
		}
	}
	return run;
}
