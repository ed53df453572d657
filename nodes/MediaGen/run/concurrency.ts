// How many runs the account may have in flight at once (GET /me), which is how many items a step runs at once.
import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, identityOf } from '../../shared/transport';
import { identityProblem } from '../../shared/responseChecks';

/** As many items at once as the identity may have runs in flight, at most 20. */
export async function concurrencyOf(ctx: IExecuteFunctions, items: number): Promise<number> {
	if (items <= 1) return 1;
	if ((await identityOf(ctx)).kind === 'anonymous') return 1;
	try {
		const me = await apiRequest<{ concurrency?: number }>(ctx, {
			method: 'GET',
			path: '/me',
			retryTransient: 2,
			expect: identityProblem,
		});
		const n = Number(me.body?.concurrency);
		return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), 20) : 1;
	} catch {
		return 1; // the runs themselves will report what is wrong with the identity
	}
}
