// Polls GET /generations/{id} until the run is final. Reading also settles the run upstream,
// so polling alone reaches a final state. QUEUED and unknown statuses count as still running.
// Reads are safe to repeat: once the run is known, dropped answers, 5xx, 429 and even a 404 are
// waited through (with backoff) until the time limit, so a short outage never loses a paid run.
// When to read is pollSchedule's: planned from how long this model's runs took so far in this n8n instance.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, isRetryableRead, sleepUnlessAborted, type ApiContext } from '../../shared/transport';
import { generationAnswerProblem } from '../../shared/answers';
import { FINAL_STATUSES, type RunRecord } from '../../shared/records';
import { DurationMemory, estimatedDurationMs, nextReadAtMs } from './pollSchedule';
import { addRunDetails, failureInBrief, runError } from './runErrors';
import { itemDeadline, TIME_LIMIT_CODE, timeLimitMs } from './timeLimit';

const MAX_BACKOFF_MS = 15_000;

/** How long each model's runs took in this process (n8n keeps one copy of the node's code per process). */
export const seenDurations = new DurationMemory();

export interface WaitSettings {
	pollIntervalMs: number;
	/** 0 or undefined: the spec's suggestion for the run's kind. */
	timeoutMs?: number;
	requestTimeoutMs?: number;
	/** Epoch ms the whole item must be done by (submission included); else now plus the time limit. */
	deadline?: number;
}

export async function getRun(
	ctx: ApiContext,
	runId: string,
	itemIndex: number,
	requestTimeoutMs?: number,
	deadline?: number,
): Promise<RunRecord> {
	const res = await apiRequest<{ generation: RunRecord }>(ctx, {
		method: 'GET',
		path: `/generations/${encodeURIComponent(runId)}`,
		retryTransient: 3,
		itemIndex,
		timeoutMs: requestTimeoutMs,
		deadline,
		expect: generationAnswerProblem,
	});
	return res.body.generation;
}

/**
 * Reads the run until it is final. Generate and Run Look call this as soon as the submission is answered
 * (they pass the request key): a run that has not started yet is timed from here, and its time is learnt for
 * its model. Generation → Wait picks up a run of unknown age, and a request key may bring back a run started
 * earlier: those are read at the plain interval and teach nothing.
 */
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
	const startedAt = Date.now();
	const timed = requestKey !== undefined && (first.status === 'PENDING' || first.status === 'QUEUED');
	const window = timed ? seenDurations.window(first.model) : undefined;
	let run = first;
	let misses = 0;
	let reads = 0;
	let lastReadAt = 0;
	let lastRunningAt = 0;
	let lastProblem = '';
	while (!FINAL_STATUSES.includes(run.status)) {
		const pauseMs = misses
			? Math.min(settings.pollIntervalMs * 2 ** misses, MAX_BACKOFF_MS)
			: nextReadAtMs(reads + 1, lastReadAt, settings.pollIntervalMs, window) - (Date.now() - startedAt);
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
			const error = new NodeOperationError(
				ctx.getNode(),
				`Stopped waiting for run ${run.id}: the execution was cancelled`,
				{
					description: `The run keeps going on the service. Pick it up with Generation → Wait, run ID ${run.id}.`,
					itemIndex,
				},
			);
			throw addRunDetails(error, { runId: run.id, requestKey, status: run.status, cost: run.cost });
		}
		reads++;
		lastReadAt = Date.now() - startedAt;
		try {
			run = await getRun(ctx, run.id, itemIndex, settings.requestTimeoutMs, deadline);
			misses = 0;
		} catch (error) {
			if (!isRetryableRead(error))
				throw addRunDetails(error, { runId: run.id, requestKey, status: run.status, cost: run.cost });
			misses++;
			lastProblem = failureInBrief(error);
			continue;
		}
		if (!FINAL_STATUSES.includes(run.status)) lastRunningAt = lastReadAt;
		else if (timed && run.status === 'SUCCEEDED') {
			seenDurations.record(run.model, estimatedDurationMs(lastRunningAt, lastReadAt));
		}
	}
	return run;
}
