// Runs a run-producing operation over all input items, as many at once as the identity's
// concurrency allows (GET /me), with "Continue On Fail" turning failures into error items.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiRequest, type Identity } from '../transport';
import { identityProblem } from '../transport/answers';
import { runPool } from './batch';
import { errorItem } from './runErrors';

export async function concurrencyOf(ctx: IExecuteFunctions, identity: Identity, items: number): Promise<number> {
	if (items <= 1) return 1;
	if (identity.kind === 'anonymous') return 1;
	try {
		const me = await apiRequest<{ concurrency?: number }>(ctx, { method: 'GET', path: '/me', retryTransient: 2, expect: identityProblem }, identity);
		const n = Number(me.body?.concurrency);
		return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), 20) : 1;
	} catch {
		return 1; // the runs themselves will report what is wrong with the identity
	}
}

/**
 * @param concurrency how many items at once; by default as many runs as the identity may have in flight
 */
export async function executeBatch(
	ctx: IExecuteFunctions,
	identity: Identity,
	job: (itemIndex: number) => Promise<INodeExecutionData>,
	concurrency?: number,
): Promise<INodeExecutionData[]> {
	const count = ctx.getInputData().length;
	const width = concurrency ?? (await concurrencyOf(ctx, identity, count));
	const continueOnFail = ctx.continueOnFail();
	const results = await runPool(count, width, job, !continueOnFail);
	const out: INodeExecutionData[] = [];
	for (const [i, r] of results.entries()) {
		if (!r) continue; // not started: an earlier item failed and the node stops
		if (r.ok) out.push(r.value);
		else if (continueOnFail) out.push(errorItem(r.error, i));
		else throw r.error;
	}
	return out;
}
