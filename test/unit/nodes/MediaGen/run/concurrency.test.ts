// nodes/MediaGen/run/concurrency.ts: how many runs at once, from GET /me, with a context that answers in memory.
import type { IExecuteFunctions } from 'n8n-workflow';

import { concurrencyOf } from '../../../../../nodes/MediaGen/run/concurrency';
import type { CredentialKind } from '../../../../../nodes/shared/transport/identity';
import { credentialsOf } from '../../../../helpers/identity';

/**
 * A context of credential `kind` (identity `n`: each has rate budgets of its own) whose GET /me answers `me` (or
 * fails), counting the requests.
 */
function contextAnswering(me: unknown, n: number, fail = false, kind: CredentialKind = 'apiKey') {
	const calls: unknown[] = [];
	const ctx = {
		getNode: () => ({ name: 'Media Generation', type: 'n8n-nodes-mediagen.mediaGen' }),
		getNodeParameter: (name: string) => (name === 'authentication' ? kind : undefined),
		getCredentials: credentialsOf(kind, 'http://127.0.0.1:1/v1', n),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: unknown) => {
				calls.push(options);
				if (fail) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
				return { statusCode: 200, body: me, headers: {} };
			},
		},
	};
	return { ctx: ctx as unknown as IExecuteFunctions, calls };
}

test('one item, or an anonymous ID (one run at a time), asks nothing', async () => {
	const one = contextAnswering({ tier: 'paid', concurrency: 3 }, 1);
	const anonymous = contextAnswering({ tier: 'paid', concurrency: 3 }, 2, false, 'anonymous');
	expect(await concurrencyOf(one.ctx, 1)).toBe(1);
	expect(await concurrencyOf(anonymous.ctx, 5)).toBe(1);
	expect([...one.calls, ...anonymous.calls]).toHaveLength(0);
});

test("the account's concurrency, at most 20; 1 when it is missing or the read fails", async () => {
	expect(await concurrencyOf(contextAnswering({ tier: 'paid', concurrency: 3 }, 3).ctx, 5)).toBe(3);
	expect(await concurrencyOf(contextAnswering({ tier: 'paid', concurrency: 50 }, 4).ctx, 5)).toBe(20);
	expect(await concurrencyOf(contextAnswering({ tier: 'free' }, 5).ctx, 5)).toBe(1);
	expect(await concurrencyOf(contextAnswering({}, 6, true).ctx, 5)).toBe(1);
});
