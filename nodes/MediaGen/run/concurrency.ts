// The account as GET /me gives it (Account → Get, Estimate Cost's balance), and how many runs it may have in flight
// at once (how many items a step runs at once).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, identityOf } from '../../shared/transport';
import { identityProblem } from '../../shared/responseChecks';

/** GET /me: the account (balance, concurrency, tier …); Account → Get outputs it whole. */
export async function readAccount(ctx: IExecuteFunctions, itemIndex?: number): Promise<IDataObject> {
	const me = await apiRequest<IDataObject>(ctx, {
		method: 'GET',
		path: '/me',
		retryTransient: 2,
		itemIndex,
		expect: identityProblem,
	});
	return me.body;
}

/** As many items at once as the identity may have runs in flight, at most 20. */
export async function concurrencyOf(ctx: IExecuteFunctions, items: number): Promise<number> {
	if (items <= 1 || (await identityOf(ctx)).kind === 'anonymous') return 1;
	try {
		const n = Number((await readAccount(ctx))?.concurrency);
		return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), 20) : 1;
	} catch {
		return 1; // the runs themselves will report what is wrong with the identity
	}
}
