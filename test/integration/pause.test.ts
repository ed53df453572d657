// Pause mode through WorkflowExecute: the execution waits (no worker held) while the sandbox's runs go on,
// and the sandbox's signed deliveries to the resume URL (served as n8n's WaitingWebhooks does) move
// the batch on and resume it with the same items, files and errors as Poll mode.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { NO_SIGNING_SECRET_CHOSEN, TIMER_ERROR } from '../../nodes/MediaGen/pause/pauseRuns';
import { SIGNATURE_FAILURE } from '../../nodes/MediaGen/pause/signatureFailure';
import { signWebhook } from '../../sandbox/webhooks';
import { resumeByTimer, runNode } from '../helpers/engine';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import { until } from '../helpers/until';
import type { TestBackend } from '../helpers/sandbox';
import type { WaitingHost } from '../helpers/waitingHost';
import { ownAccount, type OwnAccount } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
usePauseStack((b, h) => ([backend, host] = [b, h]));

const credentials = () => ({
	...backend.apiCredentials,
	mediaGenWebhookApi: { secret: backend.account.webhookSecret },
});
const prompts = (...list: string[]) => list.map((prompt) => ({ json: { prompt } }));

// Tests that take an account of their own (ownAccount) do so because earlier tests' stuck runs hold the shared
// account's slots, and their refunds land late.

async function pause(params: IDataObject, items?: INodeExecutionData[], extra: IDataObject = {}) {
	const result = await runNode({
		parameters: pauseParameters(params),
		items,
		credentials: credentials(),
		webhookWaitingBaseUrl: host.baseUrl,
		...extra,
	});
	if (result.run?.status === 'waiting') host.hold(result, (extra.credentials as never) ?? credentials());
	return result;
}

test("a batch pauses the execution and resumes with every item's file when the deliveries come", async () => {
	const spent = backend.charges();
	const r = await pause({}, prompts('one', 'two'));
	expect(r.error).toBeUndefined();
	expect(r.run.status).toBe('waiting');
	expect(host.isWaiting(r.executionId)).toBe(true);
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items.map((i) => i.json.prompt)).toEqual(['one', 'two']);
	for (const [i, item] of resumed.items.entries()) {
		expect(item.json.status).toBe('SUCCEEDED');
		expect(item.binary?.data.mimeType).toBe('image/png');
		expect(item.pairedItem).toEqual({ item: i });
	}
	expect(backend.charges() - spent).toBe(10);
});

test('more items than the concurrency: 8 items on 3 slots all finish, each charged once', async () => {
	const spent = backend.charges();
	const r = await pause({}, prompts(...Array.from({ length: 8 }, (_, i) => `picture ${i}`)));
	expect(r.run.status).toBe('waiting');
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items.map((i) => i.json.prompt)).toEqual(Array.from({ length: 8 }, (_, i) => `picture ${i}`));
	expect(resumed.items.every((i) => i.json.status === 'SUCCEEDED' && i.binary?.data)).toBe(true);
	expect(backend.charges() - spent).toBe(40);
});

test('forged and replayed deliveries resume nothing', async () => {
	// Its own account: the stuck run holds a slot and is refunded seconds later, which would upset other tests.
	const r = await pause({}, prompts('quick', 'held [stuck]'), { credentials: ownAccount(backend.sandbox).creds });
	expect(r.run.status).toBe('waiting');
	const url = `${host.baseUrl}/${r.executionId}?signature=${r.run.data.resumeToken}&mgItem=0`;
	// The quick run's genuine delivery arrives, and the batch keeps waiting for the other.
	const deliveries = () => backend.sandbox.engine.webhooks.deliveries.filter((d) => d.url.includes(r.executionId));
	await until(() => deliveries().some((d) => d.delivered), 'the quick run delivered');
	const genuine = deliveries().find((d) => d.delivered)!;
	expect(genuine).toBeDefined();
	expect(host.isWaiting(r.executionId)).toBe(true);
	// Replayed by the service (a resend), it changes nothing.
	backend.sandbox.engine.webhooks.resend(genuine.id);
	await until(() => genuine.attempts.length >= 2, 'the resend to be answered');
	expect(host.isWaiting(r.executionId)).toBe(true);
	// Forged: a finished record signed with another secret, and one with no signature.
	const body = JSON.stringify({
		id: 'gen_forged',
		kind: 'image',
		model: 'studio-image-v1',
		prompt: 'held [stuck]',
		status: 'SUCCEEDED',
		outputs: [],
	});
	const now = Math.floor(Date.now() / 1000);
	const forgedSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
	const forged = await fetch(url.replace('mgItem=0', 'mgItem=1'), {
		method: 'POST',
		headers: {
			'webhook-id': 'msg_x',
			'webhook-timestamp': String(now),
			'webhook-signature': signWebhook(forgedSecret, 'msg_x', now, body),
		},
		body,
	});
	expect(forged.status).toBe(401);
	// Unsigned, at the quick run's address: a wake-up call for a run the batch already knows to be finished,
	// while another is in flight: answered 200, with no read and no change.
	const reads = backend.requests('GET /v1/generations').length;
	expect((await fetch(url, { method: 'POST', body })).status).toBe(200);
	expect(backend.requests('GET /v1/generations').length).toBe(reads);
	expect(host.isWaiting(r.executionId)).toBe(true);
	const wrongToken = await fetch(url.replace(/signature=[^&]+/, 'signature=nope'), { method: 'POST', body });
	expect(wrongToken.status).toBe(401);
});

test('a failed run: an error item with its refund under Continue On Fail', async () => {
	const spent = backend.charges();
	const r = await pause({}, prompts('fine', 'broken [fail]'), { nodeOverrides: { onError: 'continueRegularOutput' } });
	const resumed = await host.resumed(r.executionId);
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	expect(resumed.items[1].json).toMatchObject({
		status: 'FAILED',
		refunded: 5,
		runId: expect.stringMatching(/^gen_/),
		prompt: 'broken [fail]',
	});
	expect(String(resumed.items[1].json.error)).toMatch(/failed/);
	expect(backend.charges() - spent).toBe(5);
});

test('a failed run under "Continue (using error output)": an item with only the fields n8n routes to the error output', async () => {
	const r = await pause({}, prompts('fine', 'broken [fail]'), { nodeOverrides: { onError: 'continueErrorOutput' } });
	const resumed = await host.resumed(r.executionId);
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	expect(resumed.items[0].json.error ?? null).toBeNull();
	// n8n (1.123.81 and 2.41.1) sends an item to the error output when its only fields are error and message.
	expect(Object.keys(resumed.items[1].json)).toEqual(['error', 'message']);
	expect(resumed.items[1].json.error).toMatch(/^Run gen_[0-9a-f]+ failed: /);
	expect(resumed.items[1].json.message).toMatch(/^5 credits were refunded automatically\./);
	expect(resumed.items[1].pairedItem).toEqual({ item: 1 });
});

test('a failed run without Continue On Fail fails the execution, naming the run, its refund and the paid run beside it', async () => {
	const r = await pause({}, prompts('fine too', 'broken again [fail]'));
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error?.message).toMatch(/^Run gen_[0-9a-f]+ failed: .+ \(5 credits refunded automatically\)$/);
	expect(resumed.error?.description).toMatch(/5 credits were refunded automatically/);
	expect(resumed.error?.description).toMatch(
		/Runs of this step already paid for: gen_[0-9a-f]+ \(item 1, 5 credits, SUCCEEDED, request key \S+\)/,
	);
});

test('the time limit: a delivery after it resumes at once, unfinished runs marked timedOut with their run IDs', async () => {
	const own = ownAccount(backend.sandbox);
	// Item 2 is stuck; item 1's run (300 ms) ends after the 0.2 s limit, so its delivery finds the limit passed.
	const r = await pause({ waiting: { timeoutMinutes: 0.2 / 60 } }, prompts('on time', 'never done [stuck]'), {
		credentials: own.creds,
	});
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	expect(resumed.items[1].json).toMatchObject({
		timedOut: true,
		status: 'PROCESSING',
		runId: expect.stringMatching(/^gen_/),
	});
	expect(String(resumed.items[1].json.note)).toMatch(/pick it up with Generation → Wait/);
	expect(resumed.items[1].binary).toBeUndefined();
	expect(own.charges()).toBe(10);
});

test('a failed run and a run still going at the time limit, no Continue On Fail: the error names the one still going as paid', async () => {
	const own = ownAccount(backend.sandbox);
	const r = await pause({ waiting: { timeoutMinutes: 0.2 / 60 } }, prompts('broken [fail]', 'still going [stuck]'), {
		credentials: own.creds,
	});
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error?.message).toMatch(/^Run gen_[0-9a-f]+ failed: .+ \(5 credits refunded automatically\)$/);
	const stuck = [...backend.sandbox.engine.runs.values()].find((run) => run.prompt === 'still going [stuck]')!;
	expect(resumed.error?.description).toMatch(
		new RegExp(
			`Runs of this step already paid for: ${stuck.id} \\(item 2, 5 credits, (PENDING|PROCESSING), request key`,
		),
	);
	expect(own.charges()).toBe(5);
});

test('an item whose send lost its answer and then heard "busy" is never reported as not charged', async () => {
	const own = ownAccount(backend.sandbox, { concurrency: 2 });
	// A run of the account holds one slot throughout, the first item the other.
	const holder = await fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${own.creds.mediaGenApi.apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			kind: 'image',
			model: 'studio-image-v1',
			prompt: 'holder [stuck]',
			options: { resolution: '1K' },
		}),
	});
	expect(holder.status).toBe(202);
	// The second item's first send is cut off (the transport sends it again: 409 busy), so it is left for later.
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['ok', 'drop'] }]);
	const r = await pause({ waiting: { timeoutMinutes: 2 / 60 } }, prompts('first', 'second'), {
		credentials: own.creds,
	});
	const resumed = await host.resumed(r.executionId);
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	const second = resumed.items[1].json;
	expect(String(second.note)).not.toMatch(/nothing was charged/);
	// How far the second item got by the 2 s limit depends on the machine's speed: either a later send found a
	// slot and made its run (named, charged), or it is still the send whose answer was lost (may have been charged).
	const made = [...backend.sandbox.engine.runs.values()].filter((run) => run.prompt === 'second');
	if (made.length) expect(second.id).toBe(made[0].id);
	else expect(second).toMatchObject({ timedOut: true, status: 'UNCONFIRMED' });
	if (!made.length) expect(String(second.note)).toMatch(/the run may have been made and charged/);
	// At most one run for it (never two), and the account paid for exactly the runs it holds that were not refunded
	// (the holder, stuck, may fail and be refunded on a slow machine).
	expect(made.length).toBeLessThanOrEqual(1);
	const runs = own.runs();
	expect(runs.map((run) => run.prompt).sort()).toEqual(['first', 'holder [stuck]', ...made.map(() => 'second')].sort());
	expect(own.charges()).toBe(runs.filter((run) => run.status !== 'FAILED').reduce((sum, run) => sum + run.cost, 0));
});

describe('pause mode never waits without end', () => {
	test('deliveries that all fail the signature check and whose runs cannot be read back: an error once the limit passes', async () => {
		const own = ownAccount(backend.sandbox);
		// The read-back that would take them (GET /generations/{id}) never answers.
		backend.sandbox.faults.set([{ route: 'GET /generations/:id', rate: 1, kinds: ['drop'] }]);
		const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
		const wrongSecret = { ...own.creds, mediaGenWebhookApi: { secret: other } };
		const r = await runNode({
			parameters: pauseParameters({ waiting: { timeoutMinutes: 0.5 / 60 } }),
			items: prompts('signed elsewhere', 'signed elsewhere too'),
			credentials: wrongSecret,
			webhookWaitingBaseUrl: host.baseUrl,
		});
		expect(r.run.status).toBe('waiting');
		host.hold(r, wrongSecret);
		// The service retries each refused delivery (1 minute, then 5, here 120 and 600 ms): one comes after the limit,
		// and that one ends the execution.
		const resumed = await host.resumed(r.executionId);
		backend.sandbox.faults.set([]);
		expect(resumed.error?.message).toBe(SIGNATURE_FAILURE);
		// How many deliveries were refused before the 0.5 s limit depends on the machine's speed: at least one.
		expect(resumed.error?.description).toMatch(/deliver(y was|ies were) refused since the pause \(the last: Signature/);
		expect(resumed.error?.description).toMatch(
			/Runs of this step already paid for: gen_\w+ \(item 1, 5 credits, request key \S+\)/,
		);
		expect(resumed.items).toEqual([]);
		// None was taken: each was refused (401), but the one after the limit, whose answer is the execution's error.
		const answers = host.answers.filter((a) => a.executionId === r.executionId);
		expect(answers.map((a) => a.status).filter((status) => status !== 401)).toEqual([500]);
		expect(answers.find((a) => a.status === 500)?.body).toContain(SIGNATURE_FAILURE);
		// The two runs were made and are charged (nothing more): the error names them so they are not lost.
		expect(own.charges()).toBe(10);
	});

	test("deliveries that never come: n8n's timer passes on an outcome per item, not the input", async () => {
		const own = ownAccount(backend.sandbox);
		const r = await pause({ waiting: { timeoutMinutes: 0.5 / 60 } }, prompts('unheard', 'unheard too'), {
			webhookWaitingBaseUrl: 'http://127.0.0.1:9/webhook-waiting',
			credentials: own.creds,
		});
		expect(r.run.status).toBe('waiting');
		expect(new Date(r.run.data.waitTill!).getTime()).toBeLessThan(Date.now() + 62_000);
		const ended = await resumeByTimer(r, own.creds);
		expect(ended.run.status).toBe('success');
		expect(ended.items).toHaveLength(2);
		for (const [i, item] of ended.items.entries()) {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({ error: TIMER_ERROR, timedOut: true, runId: expect.stringMatching(/^gen_/) });
			expect(item.json.prompt).toBeUndefined();
			expect(String(item.json.requestKey)).toMatch(/-\d+$/);
			expect(String(item.json.description)).toMatch(/Most likely the service could not reach this n8n/);
			expect(String(item.json.description)).toMatch(
				/Request Key set to the expression "n8n-[^"]*-{{ \$itemIndex \+ 1 }}"/,
			);
			expect(String(item.json.description)).not.toMatch(/WEBHOOK_URL|n8n's log/);
		}
		expect(own.charges()).toBe(10);
	});
});

test("n8n not reachable at first: the service's retries bring the execution back", async () => {
	const own = ownAccount(backend.sandbox);
	const result = await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			prompt: 'later',
			waitMode: 'pause',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
		},
		credentials: own.creds,
		webhookWaitingBaseUrl: host.baseUrl,
	});
	expect(result.run.status).toBe('waiting');
	// Deliveries fail while the execution is unknown to the host (n8n down), and are retried.
	const failed = () => backend.sandbox.engine.webhooks.deliveries.filter((d) => d.url.includes(result.executionId));
	await until(() => failed().some((d) => d.attempts.length >= 1), 'a delivery tried while n8n is down');
	expect(failed().some((d) => d.attempts.length >= 1 && !d.delivered)).toBe(true);
	host.hold(result, own.creds);
	const resumed = await host.resumed(result.executionId);
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	expect(own.charges()).toBe(5);
});

test('one pool of slots: images go on beside a long video instead of queueing behind it', async () => {
	const engine = backend.sandbox.engine;
	const own = ownAccount(backend.sandbox, { concurrency: 2 });
	// The video lasts long enough (5 s) that a loaded machine still sends image 2 before it ends.
	const durations = engine.config.durations;
	engine.config.durations = { ...durations, video: 5_000 };
	try {
		await poolOfSlots(own);
	} finally {
		engine.config.durations = durations;
	}
});

async function poolOfSlots(own: OwnAccount): Promise<void> {
	const jobs = [
		{ kind: 'video', model: 'studio-video-v1', prompt: 'pool video' },
		...[1, 2, 3].map((n) => ({ kind: 'image', model: 'studio-image-v1', prompt: `pool image ${n}` })),
	];
	const result = await pause(
		{ kind: '={{ $json.kind }}', model: '={{ $json.model }}' },
		jobs.map((json) => ({ json })),
		{ credentials: own.creds },
	);
	expect(result.run.status).toBe('waiting');
	host.hold(result, own.creds);
	const resumed = await host.resumed(result.executionId);
	expect(resumed.items.map((i) => i.binary?.data.mimeType)).toEqual([
		'video/mp4',
		'image/png',
		'image/png',
		'image/png',
	]);
	const runs = own.runs();
	const video = runs.find((r) => r.kind === 'video')!;
	const images = runs.filter((r) => r.kind === 'image');
	expect(images).toHaveLength(3);
	// With fixed lanes (item p after item p + 2) image 2 would wait for the video; in one pool it takes the slot
	// image 1 frees, while the video runs.
	const second = images.find((r) => r.prompt === 'pool image 2')!;
	expect(second.createdAt).toBeLessThan(video.finishesAt);
	expect(own.charges()).toBe(runs.reduce((sum, r) => sum + r.cost, 0));
}

describe('pause mode is refused before anything is spent where the service could not call back', () => {
	test.each([
		[
			'plain http on a public host',
			'http://n8n.example.com/webhook-waiting',
			/resume URL \(http:\/\/n8n\.example\.com\/webhook-waiting\/[^)]+\) is not https/,
		],
		['a private host', 'https://10.1.2.3/webhook-waiting', /is on a private or local host/],
	])('%s', async (_name, waitingBase, message) => {
		const spent = backend.charges();
		const posts = backend.requests('POST /v1/generations').length;
		const r = await pause({ prompt: 'p' }, undefined, { webhookWaitingBaseUrl: waitingBase });
		expect(r.error?.message).toMatch(message);
		expect(r.error?.description).toMatch(/Set N8N_WEBHOOK_URL \(n8n 1\.x: WEBHOOK_URL, the older name/);
		expect(r.error?.description).toMatch(/Waiting → Poll/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.charges()).toBe(spent);
	});

	test('no webhook signing secret', async () => {
		const blankSecret = { ...backend.apiCredentials, mediaGenWebhookApi: { secret: ' ' } };
		const r = await pause({ prompt: 'p' }, undefined, { credentials: blankSecret });
		expect(r.error?.message).toMatch(/^Waiting → Pause needs the webhook signing secret/);
	});

	test('no signing-secret credential selected: said so (not "empty"), before anything is charged', async () => {
		const spent = backend.charges();
		const posts = backend.requests('POST /v1/generations').length;
		const r = await pause({ prompt: 'p' }, undefined, {
			nodeOverrides: { credentials: { mediaGenApi: { id: '1', name: 'Media Generation API' } } },
		});
		expect(r.error?.message).toBe(NO_SIGNING_SECRET_CHOSEN);
		expect(r.error?.description).toMatch(/^Pick yours in the second credential box at the top of this node/);
		expect(r.error?.description).toMatch(/Nothing was submitted and nothing was charged\.$/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.charges()).toBe(spent);
	});
});

test('App → Run Look pauses too, and keeps the app and look on its items', async () => {
	const result = await runNode({
		parameters: {
			resource: 'app',
			operation: 'runLook',
			app: { __rl: true, mode: 'id', value: 'birthday-song' },
			look: 'lofi',
			waitMode: 'pause',
		},
		credentials: credentials(),
		webhookWaitingBaseUrl: host.baseUrl,
	});
	expect(result.run.status).toBe('waiting');
	host.hold(result, credentials());
	const resumed = await host.resumed(result.executionId);
	expect(resumed.items[0].json).toMatchObject({ status: 'SUCCEEDED', app: 'birthday-song', look: 'lofi' });
	expect(resumed.items[0].binary?.data_1).toBeDefined();
});
