// How many items run at once, and the pool that runs them.
// runPool runs one job per input item with at most `concurrency` in flight, keeping results in input order.
// Errors are kept per item so one failure does not stop the others, unless `stopOnError` is set:
// then no new job starts after a failure (jobs already running finish), so no more credits are spent.

import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, type Identity } from '../../shared/transport';
import { identityProblem } from '../../shared/answers';

/** As many items at once as the identity may have runs in flight (GET /me), at most 20. */
export async function concurrencyOf(ctx: IExecuteFunctions, identity: Identity, items: number): Promise<number> {
	if (items <= 1) return 1;
	if (identity.kind === 'anonymous') return 1;
	try {
		const me = await apiRequest<{ concurrency?: number }>(
			ctx,
			{ method: 'GET', path: '/me', retryTransient: 2, expect: identityProblem },
			identity,
		);
		const n = Number(me.body?.concurrency);
		return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), 20) : 1;
	} catch {
		return 1; // the runs themselves will report what is wrong with the identity
	}
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function runPool<T>(
	count: number,
	concurrency: number,
	job: (index: number) => Promise<T>,
	stopOnError = false,
): Promise<Array<Settled<T> | undefined>> {
	const results: Array<Settled<T> | undefined> = new Array(count);
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (next < count && !(stopOnError && failed)) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await job(index) };
			} catch (error) {
				results[index] = { ok: false, error };
				failed = true;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	return results;
}
