// nodes/MediaGen/run/concurrency.ts: how many runs at once, from GET /me, with a context that answers in memory.
import type { IExecuteFunctions } from 'n8n-workflow';

import { concurrencyOf } from '../../../../../nodes/MediaGen/run/concurrency';
import type { Identity } from '../../../../../nodes/shared/transport';

const identity = (kind: Identity['kind'], n: number): Identity => ({
	kind,
	credentialType: kind === 'apiKey' ? 'mediaGenApi' : 'mediaGenAnonymousApi',
	baseUrl: 'http://127.0.0.1:1/v1',
	fingerprint: `concurrency-test-${kind}-${n}`,
	secrets: [],
});

/** A context whose GET /me answers `me` (or fails), counting the requests. */
function contextAnswering(me: unknown, fail = false) {
	const calls: unknown[] = [];
	const ctx = {
		getNode: () => ({ name: 'Media Generation', type: 'n8n-nodes-mediagen.mediaGen' }),
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
	const { ctx, calls } = contextAnswering({ tier: 'paid', concurrency: 3 });
	expect(await concurrencyOf(ctx, identity('apiKey', 1), 1)).toBe(1);
	expect(await concurrencyOf(ctx, identity('anonymous', 2), 5)).toBe(1);
	expect(calls).toHaveLength(0);
});

test("the account's concurrency, at most 20; 1 when it is missing or the read fails", async () => {
	expect(await concurrencyOf(contextAnswering({ tier: 'paid', concurrency: 3 }).ctx, identity('apiKey', 3), 5)).toBe(3);
	expect(await concurrencyOf(contextAnswering({ tier: 'paid', concurrency: 50 }).ctx, identity('apiKey', 4), 5)).toBe(
		20,
	);
	expect(await concurrencyOf(contextAnswering({ tier: 'free' }).ctx, identity('apiKey', 5), 5)).toBe(1);
	expect(await concurrencyOf(contextAnswering({}, true).ctx, identity('apiKey', 6), 5)).toBe(1);
});
