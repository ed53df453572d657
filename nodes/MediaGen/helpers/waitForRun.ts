// Polls GET /generations/{id} until the run is final. Reading also settles the run upstream,
// so polling alone reaches a final state. QUEUED and unknown statuses count as still running.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiRequest, type Identity } from '../transport';
import { FINAL_STATUSES, type MediaKind, type RunRecord } from './catalogueTypes';

/** The spec's suggested client time-outs. */
export const DEFAULT_TIMEOUT_MINUTES: Record<MediaKind, number> = { image: 3, video: 10, music: 5 };

export interface WaitSettings {
	pollIntervalMs: number;
	/** 0 or undefined: the spec's suggestion for the run's kind. */
	timeoutMs?: number;
	requestTimeoutMs?: number;
}

export async function getRun(ctx: IExecuteFunctions, identity: Identity, runId: string, itemIndex: number, requestTimeoutMs?: number): Promise<RunRecord> {
	const res = await apiRequest<{ generation: RunRecord }>(
		ctx,
		{ method: 'GET', path: `/generations/${encodeURIComponent(runId)}`, retryTransient: 3, itemIndex, timeoutMs: requestTimeoutMs },
		identity,
	);
	return res.body.generation;
}

export async function waitForRun(
	ctx: IExecuteFunctions,
	identity: Identity,
	first: RunRecord,
	settings: WaitSettings,
	itemIndex: number,
): Promise<RunRecord> {
	const signal = ctx.getExecutionCancelSignal();
	const timeoutMs = settings.timeoutMs || DEFAULT_TIMEOUT_MINUTES[first.kind] * 60_000 || 10 * 60_000;
	const started = Date.now();
	let run = first;
	while (!FINAL_STATUSES.includes(run.status)) {
		if (Date.now() - started >= timeoutMs) {
			throw runError(
				ctx,
				run,
				`Run ${run.id} did not finish within ${Math.round(timeoutMs / 1000)} seconds (last status ${run.status})`,
				`The run keeps going on the service and stays charged until it ends (failed runs are refunded). Use Generation → Wait with run ID ${run.id} to pick it up later, or raise "Time Limit" under Waiting.`,
				itemIndex,
			);
		}
		await sleep(settings.pollIntervalMs, signal);
		if (signal?.aborted) throw new NodeOperationError(ctx.getNode(), `Stopped waiting for run ${run.id}: the execution was cancelled`, { itemIndex });
		run = await getRun(ctx, identity, run.id, itemIndex, settings.requestTimeoutMs);
	}
	return run;
}

/** An error about a run that keeps its id, status and refund, so "Continue On Fail" items say what happened. */
export function runError(ctx: IExecuteFunctions, run: RunRecord, message: string, description: string, itemIndex: number): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
	Object.assign(error.context, {
		runId: run.id,
		status: run.status,
		cost: run.cost,
		refunded: run.status === 'FAILED' ? (run.refunded ?? run.cost) : 0,
	});
	return error;
}

/** A FAILED or CANCELED run as an error: failed runs are refunded automatically. */
export function failedRunError(ctx: IExecuteFunctions, run: RunRecord, itemIndex: number): NodeOperationError {
	const refunded = run.refunded ?? run.cost;
	return runError(
		ctx,
		run,
		`Run ${run.id} ${run.status === 'CANCELED' ? 'was cancelled' : 'failed'}: ${run.error ?? 'no reason given'}`,
		`${refunded} credit${refunded === 1 ? '' : 's'} were refunded automatically. Try again, perhaps with another prompt or model; a new execution starts a new run.`,
		itemIndex,
	);
}
