/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Pause mode ties every run to its item exactly (issue 23): identical requests in one batch, a re-run and a
// concurrent execution of the same batch each get their own runs; the output is built once; nothing is sent
// after the time limit, which left at 0 grows with the batch; two batches on one account never wait on the
// service's retry schedule; and a process that did not pause the batch (a restarted n8n, a queue-mode webhook
// process) still finishes it exactly.
import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';

import { itemWebhookUrl, PAUSE_STATE_KEY, type PauseState } from '../../nodes/MediaGen/pause/pauseState';
import { runNode, type RunResult } from '../helpers/engine';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import type { TestBackend } from '../helpers/sandbox';
import { until } from '../helpers/until';
import { startWaitingHost, type WaitingHost } from '../helpers/waitingHost';
import { ownAccount, runsOf, type OwnCredentials } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
usePauseStack((b, h) => ([backend, host] = [b, h]));

const same = (count: number, prompt: string) => Array.from({ length: count }, () => ({ json: { prompt } }));

/** Runs the step until it pauses; n8n does not take its deliveries yet (409 "running") until `on.hold`. */
async function pauseUnheld(
	creds: OwnCredentials,
	items: INodeExecutionData[],
	params: IDataObject = {},
	on = host,
	cof = false,
) {
	const result = await runNode({
		parameters: { ...pauseParameters(), ...params },
		items,
		credentials: creds,
		webhookWaitingBaseUrl: on.baseUrl,
		...(cof ? { nodeOverrides: { onError: 'continueRegularOutput' } } : {}),
	});
	expect(result.error).toBeUndefined();
	expect(result.run.status).toBe('waiting');
	return result;
}

async function pause(creds: OwnCredentials, items: INodeExecutionData[], params: IDataObject = {}, on = host) {
	const result = await pauseUnheld(creds, items, params, on);
	on.hold(result, creds);
	return result;
}

const posts = () => backend.requests('POST /v1/generations').length;

/** Each output item is the run its own request key made, for its own position in this execution. */
function expectOwnRuns(paused: RunResult, items: INodeExecutionData[]): string[] {
	const ids = items.map((item) => String(item.json.id));
	expect(new Set(ids).size).toBe(items.length);
	for (const [i, item] of items.entries()) {
		const run = backend.sandbox.engine.runs.get(String(item.json.id))!;
		expect(item.json.status).toBe('SUCCEEDED');
		expect(item.binary?.data).toBeDefined();
		expect(item.pairedItem).toEqual({ item: i });
		expect(run.requestKey).toBe(item.json.requestKey);
		expect(run.webhookUrl).toContain(`/${paused.executionId}?`);
		expect(run.webhookUrl).toMatch(new RegExp(`mgItem=${i}$`));
	}
	return ids;
}

describe('identical requests in one batch: a run of its own for every item', () => {
	test.each([8, 20])('%i identical items on 3 slots', async (count) => {
		const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
		const before = posts();
		const paused = await pause(creds, same(count, `the same picture ${count}`));
		const resumed = await host.resumed(paused.executionId);
		expect(resumed.error).toBeUndefined();
		const ids = expectOwnRuns(paused, resumed.items);
		expect(
			runsOf(backend.sandbox, id)
				.map((r) => r.id)
				.sort(),
		).toEqual([...ids].sort());
		expect(backend.charges(id)).toBe(5 * count);
		expect((posts() - before) / count).toBeLessThanOrEqual(1.2);
		console.log(`${count} identical items: ${(posts() - before) / count} POSTs per item`);
		// The output is built once: each run's file downloaded once, by the one call that resumed.
		for (const runId of ids) expect(backend.sandbox.engine.outputDownloads.get(runId)).toBe(1);
	});
});

test('the same batch again right after, and two executions of it at once: each gets only its own runs', async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
	const batch = () => ['cat', 'dog', 'cat', 'owl', 'cat'].map((prompt) => ({ json: { prompt } }));
	const first = await pause(creds, batch());
	const firstIds = expectOwnRuns(first, (await host.resumed(first.executionId)).items);
	const again = await pause(creds, batch());
	const againIds = expectOwnRuns(again, (await host.resumed(again.executionId)).items);
	const [a, b] = await Promise.all([pause(creds, batch()), pause(creds, batch())]);
	const [aItems, bItems] = await Promise.all([host.resumed(a.executionId), host.resumed(b.executionId)]);
	const all = [...firstIds, ...againIds, ...expectOwnRuns(a, aItems.items), ...expectOwnRuns(b, bItems.items)];
	expect(new Set(all).size).toBe(20);
	expect(runsOf(backend.sandbox, id)).toHaveLength(20);
	expect(backend.charges(id)).toBe(100);
});

test('nothing is submitted after the time limit; items never sent come out uncharged', async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	const paused = await pause(creds, same(4, 'one at a time'), { waiting: { timeoutMinutes: 0.5 / 60 } });
	const pausedAt = Date.now();
	const resumed = await host.resumed(paused.executionId);
	const limit = pausedAt + 500;
	for (const run of runsOf(backend.sandbox, id)) expect(run.createdAt).toBeLessThanOrEqual(limit);
	const unsent = resumed.items.filter((i) => i.json.status === 'NOT_SUBMITTED');
	expect(unsent.length).toBeGreaterThan(0);
	for (const item of unsent) expect(item.json).toMatchObject({ timedOut: true, requestKey: expect.any(String) });
	expect(backend.charges(id)).toBe(5 * runsOf(backend.sandbox, id).length);
	expect(runsOf(backend.sandbox, id).length + unsent.length).toBeLessThanOrEqual(4);
});

test('left at 0, the limit gives each round of runs the batch needs on its slots the suggested 3 minutes', async () => {
	const { creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 2 });
	const waitFor = async (params: IDataObject) => {
		const before = Date.now();
		const paused = await pause(creds, same(5, 'rounds of a batch'), params);
		await host.resumed(paused.executionId);
		// n8n's own timer: the batch's limit, counted from the pause, and the minute n8n takes to look.
		return (new Date(paused.run.data.waitTill!).getTime() - before - 60_000) / 60_000;
	};
	// 5 images on 2 slots are 3 rounds: 9 minutes, where 3 minutes for all would leave items unsent.
	expect(await waitFor({})).toBeCloseTo(9, 1);
	// A limit the user set is the whole batch's, as it is.
	expect(await waitFor({ waiting: { timeoutMinutes: 2 } })).toBeCloseTo(2, 1);
});

test('a batch paused by an older version (its record an object, each webhook URL in its item) finishes exactly', async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	const paused = await pauseUnheld(creds, same(3, 'paused by an older version'));
	const context = paused.run.data.executionData!.contextData as Record<string, IDataObject>;
	const node = Object.values(context).find((data) => typeof data[PAUSE_STATE_KEY] === 'string')!;
	const record = JSON.parse(String(node[PAUSE_STATE_KEY])) as PauseState;
	for (const [position, entry] of record.items.entries()) {
		entry.body.webhookUrl = itemWebhookUrl(record.resumeUrl!, position);
	}
	delete record.resumeUrl;
	node[PAUSE_STATE_KEY] = record as unknown as IDataObject;
	host.hold(paused, creds);
	// On 1 slot two items are sent after the pause, each with its own webhook URL (checked by expectOwnRuns).
	expectOwnRuns(paused, (await host.resumed(paused.executionId)).items);
	expect(runsOf(backend.sandbox, id)).toHaveLength(3);
	expect(backend.charges(id)).toBe(15);
});

test("two batches on one 2-slot account finish without waiting on the service's retries", async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 2 });
	const started = Date.now();
	const [a, b] = await Promise.all([pause(creds, same(5, 'left batch')), pause(creds, same(5, 'right batch'))]);
	const [ra, rb] = await Promise.all([host.resumed(a.executionId), host.resumed(b.executionId)]);
	expectOwnRuns(a, ra.items);
	expectOwnRuns(b, rb.items);
	expect(backend.charges(id)).toBe(50);
	const deliveries = backend.sandbox.engine.webhooks.deliveries.filter(
		(d) => d.url.includes(`/${a.executionId}?`) || d.url.includes(`/${b.executionId}?`),
	);
	expect(deliveries).toHaveLength(10);
	// No call asked the service to come back later (503): a busy slot never sends a delivery to its retries.
	// (A delivery that beats the test's hold() is answered 409 by the host, as n8n does, and retried: not ours.)
	const ours = host.answers.filter((x) => x.executionId === a.executionId || x.executionId === b.executionId);
	expect(ours.filter((x) => x.status === 503)).toEqual([]);
	expect(ours.filter((x) => x.status === 200)).toHaveLength(10);
	// 10 runs of 350 ms on 2 slots take 1.75 s at best; the service's first retry alone would add 120 ms per stall.
	console.log(`two 5-image pause batches on 2 slots: ${Date.now() - started} ms (ideal 1750 ms)`);
});

test('a process that did not pause the batch (restarted, queue-mode webhook) finishes it exactly', async () => {
	let other: INodeType | undefined;
	jest.isolateModules(() => {
		const { MediaGen } = require('../../nodes/MediaGen/MediaGen.node') as { MediaGen: new () => INodeType };
		other = new MediaGen();
	});
	const elsewhere = await startWaitingHost({ nodeType: other });
	try {
		const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
		const before = posts();
		const paused = await pause(creds, same(8, 'seen elsewhere'), {}, elsewhere);
		const resumed = await elsewhere.resumed(paused.executionId);
		expect(resumed.error).toBeUndefined();
		expectOwnRuns(paused, resumed.items);
		expect(runsOf(backend.sandbox, id)).toHaveLength(8);
		expect(backend.charges(id)).toBe(40);
		console.log(`8 identical items resumed by another process: ${(posts() - before) / 8} POSTs per item`);
	} finally {
		await elsewhere.close();
	}
});

test('a typed key already used for another prompt, met after the pause: that item is refused, as in Poll', async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	const keyed = { additionalFields: { requestKey: '={{ $json.key }}' } };
	const earlier = await pause(creds, [{ json: { prompt: 'an earlier picture', key: 'taken-key' } }], keyed);
	expect((await host.resumed(earlier.executionId)).items[0].json.status).toBe('SUCCEEDED');
	const spent = backend.charges(id);
	const before = posts();
	// One slot: the first item's run holds it, so the second is sent by a delivery's call after the pause.
	const items = [
		{ json: { prompt: 'a new picture', key: 'fresh-key' } },
		{ json: { prompt: 'another new picture', key: 'taken-key' } },
	];
	const result = await pauseUnheld(creds, items, keyed, host, true);
	expect(posts() - before).toBe(1);
	host.hold(result, creds);
	const resumed = await host.resumed(result.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items[0].json).toMatchObject({ status: 'SUCCEEDED', prompt: 'a new picture' });
	expect(resumed.items[1].json.error).toMatch(
		/Request key "taken-key" already belongs to run gen_[0-9a-f]+, made with another prompt/,
	);
	expect(resumed.items[1].binary).toBeUndefined();
	expect(backend.charges(id) - spent).toBe(5);
});

test('an item another process sent is not called unsent: the step that paused sees its run in the list', async () => {
	const { id, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	const keyed = { additionalFields: { requestKey: '={{ $json.key }}' }, waiting: { timeoutMinutes: 0.5 / 60 } };
	const items = [
		{ json: { prompt: 'sent by this process', key: 'own-key' } },
		{ json: { prompt: 'sent by another process', key: 'other-key' } },
	];
	// Not held yet: deliveries meet n8n's 409 "running" until the time limit has passed (the service delivers again).
	const paused = await pauseUnheld(creds, items, keyed);
	const pausedAt = Date.now();
	// Another n8n process (a second webhook process, or the one before a restart) sends the second item once the
	// first run has freed the slot, and this process, which paused the batch, does not hear of it.
	const { engine } = backend.sandbox;
	const final = () =>
		runsOf(backend.sandbox, id).every((r) => ['SUCCEEDED', 'FAILED'].includes(engine.settle(r).status));
	await until(final, 'the first run is final');
	// It sends what the batch record holds for that item: the first item's request with the second's prompt and key.
	const sent = backend.requests('POST /v1/generations').map((r) => r.body as IDataObject);
	const first = sent.find((body) => body.requestKey === 'own-key')!;
	const other = await fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${creds.mediaGenApi.apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			...first,
			prompt: 'sent by another process',
			requestKey: 'other-key',
			webhookUrl: String(first.webhookUrl).replace('mgItem=0', 'mgItem=1'),
		}),
	});
	expect(other.status).toBe(202);
	await until(() => Date.now() > pausedAt + 600, 'the time limit has passed');
	host.hold(paused, creds);
	const resumed = await host.resumed(paused.executionId);
	expect(resumed.items[0].json).toMatchObject({ status: 'SUCCEEDED', requestKey: 'own-key' });
	expect(resumed.items[1].json).toMatchObject({ status: 'UNCONFIRMED', requestKey: 'other-key', timedOut: true });
	expect(String(resumed.items[1].json.note)).not.toMatch(/nothing was charged/);
	expect(backend.charges(id)).toBe(10);
});
