// Issue 52, pause mode: a submission the service handles after the node gave up on it (the sandbox's fault "late"),
// then a busy answer or a refusal in the same resume call. The item may have been charged whatever came after, so
// it is never called uncharged; and a key whose earlier run failed (refunded) moves on to -r2 in resume calls as
// it does before the pause, the output naming the key the run was made under. Judged by the sandbox's ledger.
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Account } from '../../sandbox/types';
import { runNode } from '../helpers/engine';
import { runCharges } from '../helpers/ledger';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import type { TestBackend } from '../helpers/sandbox';
import { until } from '../helpers/until';
import type { WaitingHost } from '../helpers/waitingHost';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
usePauseStack((b, h) => ([backend, host] = [b, h]));

/** A sandbox minute lasts 120 ms here (usePauseStack): a late request's delay in real ms, before the scale. */
const realMs = (ms: number) => ms / backend.sandbox.config.timeScale;

function pauseAccount(settings: Partial<Account> = {}) {
	const own = ownAccount(backend.sandbox, { credits: 10_000, ...settings });
	const pause = async (items: INodeExecutionData[], params: IDataObject = {}, continueOnFail = true) => {
		const result = await runNode({
			parameters: pauseParameters(params),
			items,
			credentials: own.creds as unknown as Record<string, ICredentialDataDecryptedObject>,
			webhookWaitingBaseUrl: host.baseUrl,
			nodeOverrides: { continueOnFail },
		});
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('waiting');
		host.hold(result, own.creds);
		return result;
	};
	return { ...own, pause, runWithKey: (key: unknown) => own.runs().find((r) => r.requestKey === key) };
}

const prompts = (...list: string[]) => list.map((prompt): INodeExecutionData => ({ json: { prompt } }));
const words = (json: IDataObject) => [json.error, json.description, json.note].map((w) => String(w ?? '')).join(' ');
const keyOf = (body: unknown) => String((body as IDataObject | undefined)?.requestKey ?? '');
const lateEntry = () => backend.sandbox.engine.log.find((e) => e.fault === 'late' && e.status === 0);

test('finding 1: a lost answer, then busy in the same call, then the time limit: never "nothing was charged"', async () => {
	const account = pauseAccount({ concurrency: 1 });
	// Item 1 goes before the pause; item 2's first send (in a resume call) is handled 8 s after the cut, when the
	// batch has ended at its 4 s limit; every send after the cut hears busy.
	const busy = Array.from({ length: 200 }, () => '409' as const);
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['ok', 'late', ...busy], lateMs: realMs(8000) }]);
	const paused = await account.pause(prompts('busy after a cut 1', 'busy after a cut 2'), {
		waiting: { timeoutMinutes: 4 / 60 },
	});
	const resumed = await host.resumed(paused.executionId, 30_000);
	await backend.sandbox.lateRequestsHandled();
	expect(resumed.error).toBeUndefined();
	const [, second] = resumed.items.map((i) => i.json);
	const late = account.runWithKey(second.requestKey);
	expect(late).toBeDefined();
	expect(runCharges(backend.sandbox, late!.id)).toEqual([5]);
	expect(words(second)).not.toMatch(/nothing was charged|not charged/i);
	expect(second.status).not.toBe('NOT_SUBMITTED');
	expect(words(second)).toMatch(/may have been (made and )?charged/);
	expect(second.requestKey).toBe(late!.requestKey);
	expect(account.charges()).toBe(10);
}, 60_000);

test('finding 3: a lost answer, then 402 in the same call: the item may have been charged, and is named so', async () => {
	const account = pauseAccount({ concurrency: 1, credits: 10 });
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['ok', 'late'], lateMs: realMs(8000) }]);
	// Once the cut is seen, the account has no credits left for the re-sent key (402); they come back before the
	// late request is handled, which then makes and charges the run.
	const wallet = account.account;
	const cut = until(lateEntry, 'the cut submission', 20_000).then(async (entry) => {
		const saved = wallet.credits;
		wallet.credits = 0;
		const key = keyOf(entry.body);
		await until(
			() => backend.sandbox.engine.log.some((e) => e.status === 402 && keyOf(e.body) === key),
			'the 402 answer',
			20_000,
		);
		wallet.credits = saved;
	});
	const paused = await account.pause(prompts('refused after a cut 1', 'refused after a cut 2'), {}, false);
	const resumed = await host.resumed(paused.executionId, 30_000);
	await cut;
	await backend.sandbox.lateRequestsHandled();
	const late = account.runs().find((r) => r.prompt === 'refused after a cut 2');
	expect(late).toBeDefined();
	expect(runCharges(backend.sandbox, late!.id)).toEqual([5]);
	// Continue On Fail is off: the step fails on item 2, and says its run may have been charged, under its key.
	expect(resumed.error).toBeDefined();
	const shown = `${resumed.error!.message} ${resumed.error!.description ?? ''}`;
	expect(shown).not.toMatch(/nothing was charged/i);
	expect(shown).toMatch(/may have (started and )?been charged/);
	expect(shown).toContain(late!.requestKey!);
	expect(resumed.error!.context?.mayBeCharged).toBe(true);
}, 60_000);

test('finding 5: a key whose earlier run failed moves on to -r2 in a resume call, and the output names it', async () => {
	const account = pauseAccount({ concurrency: 1 });
	// Keys from the data, as the advice suggests; the second item's first run fails (refunded), later ones succeed.
	const items = [
		{ json: { prompt: 'moves on 1', key: 'order-one' } },
		{ json: { prompt: 'moves on 2 [fail-first]', key: 'order-two' } },
	];
	const params = { additionalFields: { requestKey: '={{ $json.key }}' } };
	const first = await host.resumed((await account.pause(items, params)).executionId, 30_000);
	expect(first.items[1].json.status).toBe('FAILED');
	// The same input again: item 2 is sent in a resume call, gets the failed run back, and moves on to -r2.
	const second = await host.resumed((await account.pause(items, params)).executionId, 30_000);
	expect(second.error).toBeUndefined();
	const [one, two] = second.items.map((i) => i.json);
	expect(one.status).toBe('SUCCEEDED');
	expect(two.status).toBe('SUCCEEDED');
	expect(two.requestKey).toBe('order-two-r2');
	expect(account.runWithKey('order-two-r2')?.id).toBe(two.id);
	// One charge per success; the failed run was refunded.
	expect(account.charges()).toBe(10);
}, 60_000);

test('finding 5: before the pause too, the output names the -r2 key the run was made under', async () => {
	const account = pauseAccount({ concurrency: 1 });
	const items = [{ json: { prompt: 'before the pause [fail-first]', key: 'order-a' } }];
	const params = { additionalFields: { requestKey: '={{ $json.key }}' } };
	await host.resumed((await account.pause(items, params)).executionId, 30_000);
	const again = await host.resumed((await account.pause(items, params)).executionId, 30_000);
	const [item] = again.items.map((i) => i.json);
	expect(item.status).toBe('SUCCEEDED');
	expect(item.requestKey).toBe('order-a-r2');
	expect(account.runWithKey(item.requestKey)?.id).toBe(item.id);
}, 60_000);
