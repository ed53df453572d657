// Issue 52, Poll mode: a submission the service handles after the node gave up on it (the sandbox's fault "late"),
// then busy answers or refusals. Whatever the later tries hear, the item may have been charged: the output names
// its request key, the cap counts it, and running again as advised charges nothing more. Judged by the ledger.
// Also: numbered Request Keys never give two items one key, and a key another request took costs this step nothing.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Account } from '../../sandbox/types';
import { generate as generateRun } from '../helpers/generate';
import { runCharges } from '../helpers/ledger';
import { useBackend, type TestBackend } from '../helpers/sandbox';
import { until } from '../helpers/until';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
useBackend((b) => (backend = b));

const continueOnFail = { nodeOverrides: { onError: 'continueRegularOutput' as const } };
const prompts = (...list: string[]) => list.map((prompt): INodeExecutionData => ({ json: { prompt } }));

function stepAccount(settings: Partial<Account> = {}) {
	const own = ownAccount(backend.sandbox, settings);
	return {
		...own,
		generate: (params: IDataObject, items?: INodeExecutionData[], extra = {}) =>
			generateRun(own.creds, { prompt: '={{ $json.prompt }}', ...params }, items, extra),
		runWithKey: (key: unknown) => own.runs().find((r) => r.requestKey === key),
		/** The answers the sandbox gave to submissions of `key` ("late", "409", "202" …). */
		answersTo: (key: string) =>
			backend.sandbox.engine.log
				.filter((e) => e.method === 'POST' && e.path === '/v1/generations' && keyOf(e.body) === key)
				.map((e) => e.fault ?? String(e.status)),
	};
}

const keyOf = (body: unknown) => String((body as IDataObject | undefined)?.requestKey ?? '');
const claimsNothingCharged = (json: IDataObject) =>
	/nothing was charged/i.test([json.error, json.description, json.note].join(' '));

describe('finding 2: a lost answer, then busy until the time limit', () => {
	test('the item may have been charged, the cap counts it, and running again as advised charges nothing', async () => {
		const account = stepAccount({ concurrency: 1 });
		// Item 1's first send is handled 2 s after the cut; every later send hears busy until item 2 is tried.
		const busy = Array.from({ length: 60 }, () => '409' as const);
		backend.sandbox.faults.set([{ route: 'POST /generations', script: ['late', ...busy], lateMs: 2000 }]);
		const params = { additionalFields: { maxCredits: 5 }, waiting: { timeoutMinutes: 0.1, pollIntervalSeconds: 1 } };
		// Should item 2 be sent at all, its busy answers stop: the cap would then let it be charged.
		const item2Sent = until(
			() => backend.sandbox.engine.log.some((e) => /-0-2$/.test(keyOf(e.body))),
			'item 2 to be sent',
			20_000,
		).then(() => backend.sandbox.faults.set([]));
		const first = await account.generate(params, prompts('late one', 'late two'), continueOnFail);
		await backend.sandbox.lateRequestsHandled();
		item2Sent.catch(() => undefined);
		expect(first.error).toBeUndefined();
		const [one, two] = first.items.map((i) => i.json);
		const late = account.runWithKey(one.requestKey);
		expect(account.answersTo(String(one.requestKey))[0]).toBe('late');
		expect(late).toBeDefined();
		expect(runCharges(backend.sandbox, late!.id)).toEqual([5]);
		// The cap (5) holds by the ledger: item 1's run was charged, so item 2 is refused, not sent.
		expect(account.charges()).toBe(5);
		expect(claimsNothingCharged(one)).toBe(false);
		expect(one.mayBeCharged).toBe(true);
		expect(String(one.error)).toMatch(/may have started and been charged/);
		expect(String(one.description)).toContain(String(one.requestKey));
		expect(String(two.error)).toMatch(/^Max Credits per Execution \(5\)/);
		// Running again with the key as it was sent (faults over) gets the late run back, uncharged.
		backend.sandbox.faults.set([]);
		const again = await account.generate(
			{ ...params, additionalFields: { maxCredits: 5, requestKey: one.requestKey } },
			prompts('late one'),
		);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json.id).toBe(late!.id);
		expect(account.charges()).toBe(5);
	}, 60_000);
});

describe("finding 4: numbered Request Keys never repeat another item's key", () => {
	test('typed keys k, k, k-1 give three keys, three runs, each its own prompt', async () => {
		const account = stepAccount();
		const items = [
			{ json: { prompt: 'first', key: 'order-k' } },
			{ json: { prompt: 'second', key: 'order-k' } },
			{ json: { prompt: 'third', key: 'order-k-1' } },
		];
		const result = await account.generate({ additionalFields: { requestKey: '={{ $json.key }}' } }, items);
		expect(result.error).toBeUndefined();
		const keys = result.items.map((i) => i.json.requestKey);
		expect(new Set(keys).size).toBe(3);
		expect(result.items.map((i) => i.json.prompt)).toEqual(['first', 'second', 'third']);
		expect(account.runs()).toHaveLength(3);
		expect(account.charges()).toBe(15);
		// The item whose own key was unique keeps it.
		expect(keys[2]).toBe('order-k-1');
	});
});

describe('a key another request took (point c of the issue)', () => {
	test('costs this step nothing under the cap and is not listed as paid by it', async () => {
		const account = stepAccount();
		const earlier = await account.generate({ additionalFields: { requestKey: 'taken-key' } }, prompts('the first'));
		expect(earlier.error).toBeUndefined();
		expect(account.charges()).toBe(5);
		// Cap 5: the key's earlier run (5 credits, another execution's) must not use this step's cap up.
		const items = [
			{ json: { prompt: 'another prompt', key: 'taken-key' } },
			{ json: { prompt: 'a fresh one', key: 'fresh-key' } },
		];
		const params = { additionalFields: { requestKey: '={{ $json.key }}', maxCredits: 5 } };
		const result = await account.generate(params, items, continueOnFail);
		expect(result.error).toBeUndefined();
		const [taken, fresh] = result.items.map((i) => i.json);
		expect(String(taken.error)).toMatch(/already belongs to run/);
		expect(fresh.status).toBe('SUCCEEDED');
		expect(account.charges()).toBe(10);
		// Without Continue On Fail, the error does not call the earlier run one this step paid for.
		const stopped = await account.generate({ additionalFields: { requestKey: 'taken-key' } }, prompts('other'));
		expect(stopped.error?.message).toMatch(/already belongs to run/);
		expect(String(stopped.error?.description)).not.toMatch(/already paid for/);
		expect(account.charges()).toBe(10);
	});
});
