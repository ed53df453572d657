// Never pay without delivering, never say what is not true (issue: Generate and Run Look defects).
// Each case runs Generate through WorkflowExecute against the sandbox, with faults injected into the
// sandbox's routes, and checks the ledger and the message the user sees.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Model } from '../../sandbox/types';
import { runNode, type RunOptions } from '../helpers/engine';
import { generate as generateRun } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { ownAccount, runsOf } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterEach(() => backend.sandbox.faults.set([]));
afterAll(async () => backend.sandbox.close());

const continueOnFail = { onError: 'continueRegularOutput' as const };

const generate = (params: IDataObject, items?: INodeExecutionData[], extra: Partial<RunOptions> = {}) =>
	generateRun(backend.apiCredentials, params, items, extra);

const prompts = (...list: string[]) => list.map((prompt) => ({ json: { prompt } }));
const keysSince = (posts: number) =>
	backend
		.requests('POST /v1/generations')
		.slice(posts)
		.map((e) => String((e.body as IDataObject).requestKey));

describe('1. every item is checked before the first submission', () => {
	test('ten items, the tenth with an empty prompt: nothing is sent or charged, and the message names that item once', async () => {
		const posts = backend.requests('POST /v1/generations').length;
		const spent = backend.charges();
		const items = prompts(...Array.from({ length: 9 }, (_, i) => `picture ${i}`), '');
		const r = await generate({ prompt: '={{ $json.prompt }}' }, items);
		// Named as a person counts (the tenth is item 10), not by n8n's "[item 9]", which counts from 0.
		expect(r.error?.message).toBe(
			'1 of 10 items cannot be sent: item 10: Prompt is empty. Write at least 1 character.',
		);
		expect((r.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBeUndefined();
		expect(r.error?.description).toMatch(/Nothing was submitted and nothing was charged/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.charges()).toBe(spent);
	});

	test('every bad item is named, whatever its problem', async () => {
		const posts = backend.requests('POST /v1/generations').length;
		const items = [
			{ json: { prompt: 'fine', url: 'https://a.example/1.png' } },
			{ json: { prompt: '', url: 'https://a.example/1.png' } },
			{ json: { prompt: 'fine', url: 'ftp://a.example/1.png' } },
		];
		const r = await generate({ prompt: '={{ $json.prompt }}', referenceImageUrls: '={{ $json.url }}' }, items);
		expect(r.error?.message).toMatch(
			/2 of 3 items cannot be sent: item 2: Prompt is empty\. Write at least 1 character\. item 3 \("fine"\): Reference Image URLs: "ftp:/,
		);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
	});

	test('with Continue On Fail the good items run and the bad one becomes an error item in its place', async () => {
		const spent = backend.charges();
		const r = await generate({ prompt: '={{ $json.prompt }}' }, prompts('one', '', 'three'), {
			nodeOverrides: continueOnFail,
		});
		expect(r.items.map((i) => i.json.status ?? 'error')).toEqual(['SUCCEEDED', 'error', 'SUCCEEDED']);
		expect(r.items[1].json.error).toMatch(/Prompt is empty/);
		expect(r.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(backend.charges() - spent).toBe(10);
	});

	test("an error item has a run item's columns (id, options) as null, so n8n's table shows no undefined", async () => {
		const r = await generate(
			{ prompt: '={{ $json.prompt }}', additionalFields: { maxCredits: 5 } },
			prompts('one', '', 'three'),
			{
				nodeOverrides: continueOnFail,
			},
		);
		const [, badPrompt, overCap] = r.items;
		expect(Object.keys(badPrompt.json).slice(0, 1)).toEqual(['id']);
		expect(badPrompt.json).toMatchObject({ id: null, options: null, error: expect.stringMatching(/Prompt is empty/) });
		// Refused by the cap: no run, but the options it would have sent.
		expect(overCap.json).toMatchObject({ id: null, options: { resolution: '1K' }, errorCode: 'spending_cap' });
		for (const item of r.items) expect(Object.values(item.json)).not.toContain(undefined);
	});
});

describe('2. a batch that stops still accounts for every paid run', () => {
	test('the error lists each run already paid for, with its id, cost and status, and how to fetch it', async () => {
		const before = new Set(runsOf(backend.sandbox, backend.account.id).map((r) => r.id));
		const r = await generate(
			{ prompt: '={{ $json.prompt }}' },
			prompts('a cat', 'a dog [fail]', 'a cow', 'a hen', 'a fox'),
		);
		expect(r.error?.message).toMatch(/Run gen_[0-9a-f]+ failed/);
		const runs = runsOf(backend.sandbox, backend.account.id).filter((x) => !before.has(x.id));
		for (const x of runs) backend.sandbox.engine.settle(x);
		const paid = runs.filter((x) => x.status === 'SUCCEEDED');
		expect(paid.length).toBeGreaterThanOrEqual(1);
		for (const run of paid) expect(r.error?.description).toContain(`${run.id} (item`);
		expect(r.error?.description).toMatch(/5 credits, SUCCEEDED/);
		expect(r.error?.description).toMatch(/Generation → Get \(Run ID\), which charges nothing/);
		expect((r.error?.context?.paidRuns as IDataObject[]).map((p) => p.runId).sort()).toEqual(
			paid.map((x) => x.id).sort(),
		);
		// Items never started are named, and nothing was charged for them.
		if (runs.length < 5)
			expect(r.error?.description).toMatch(/(?:was|were) not started, so nothing was charged for (?:it|them)/);
	});
});

// These tests take an account of their own (ownAccount): re-sent submissions count against the service's 20 a
// minute per identity, which the tests after these would otherwise meet.

describe('3. a lost submission answer is never passed off as safe, and never matched by content', () => {
	test('answers lost three times: the same key is sent again and returns the run it made, charged once', async () => {
		const own = ownAccount(backend.sandbox);
		backend.sandbox.faults.set([{ route: 'POST /generations', script: Array(3).fill('drop_after') }]);
		const posts = backend.requests('POST /v1/generations').length;
		const r = await generateRun(own.creds, { prompt: 'lost three times' });
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.status).toBe('SUCCEEDED');
		expect(r.items[0].binary?.data.mimeType).toBe('image/png');
		expect(new Set(keysSince(posts)).size).toBe(1);
		expect(own.charges()).toBe(5);
	});

	test.each([
		['lost', 'drop_after'],
		['empty', 'malformed'],
	])(
		'answers %s until the time limit while an identical run of another execution exists: that run is never returned',
		async (_name, kind) => {
			const own = ownAccount(backend.sandbox);
			const prompt = `twin request ${kind}`;
			// Another execution (its own request key) made the same request a moment ago: same model, prompt, options.
			const other = await generateRun(own.creds, { prompt });
			const otherId = String(other.items[0].json.id);
			expect(otherId).toMatch(/^gen_/);
			backend.sandbox.faults.set([{ route: 'POST /generations', rate: 1, kinds: [kind as never] }]);
			const posts = backend.requests('POST /v1/generations').length;
			const listReads = () =>
				backend.requests('GET /v1/generations').filter((e) => !e.path.startsWith('/v1/generations/')).length;
			const reads = listReads();
			const r = await generateRun(own.creds, { prompt, waiting: { timeoutMinutes: 0.1 } });
			backend.sandbox.faults.set([]);
			expect(r.items).toHaveLength(0);
			const shown = JSON.stringify([r.items, r.error?.message, r.error?.description, r.error?.context]);
			expect(shown).not.toContain(otherId);
			expect(r.error?.message).toMatch(/within its time limit: the run may have started and been charged/);
			expect(`${r.error?.message} ${r.error?.description}`).not.toMatch(/safe/i);
			const key = String(r.error?.context?.requestKey);
			expect(r.error?.description).toContain(`Its request key is ${key}`);
			expect(r.error?.description).toContain(
				`run this step again with Additional Fields → Request Key set to "${key}"`,
			);
			// Every send carried the item's one key, and the list of runs was never read to find it.
			expect(new Set(keysSince(posts))).toEqual(new Set([key]));
			expect(listReads()).toBe(reads);
			// This item's own run was made once and charged once.
			const made = own.runs().filter((x) => x.prompt === prompt && x.id !== otherId);
			expect(made).toHaveLength(1);
			expect(own.charges()).toBe(10);
			// The advice holds: the key returns this item's own run and charges nothing more.
			const again = await generateRun(own.creds, { prompt, additionalFields: { requestKey: key } });
			expect(again.items[0].json.status).toBe('SUCCEEDED');
			expect(again.items[0].json.id).toBe(made[0].id);
			expect(own.charges()).toBe(10);
		},
	);
});

describe('4. short read outages do not lose a paid run', () => {
	test.each([
		['about 4 s of dropped polls', [{ route: 'GET /generations/:id', script: Array(6).fill('drop') }]],
		['six 429s in a row', [{ route: 'GET /generations/:id', script: Array(6).fill('429'), retryAfterSeconds: 1 }]],
		['one 404', [{ route: 'GET /generations/:id', script: ['404'] }]],
		['an empty answer to a poll', [{ route: 'GET /generations/:id', script: ['malformed'] }]],
	])('%s: the run is delivered and charged once', async (_name, faults) => {
		backend.sandbox.faults.set(faults as never);
		const spent = backend.charges();
		const r = await generate({ prompt: 'through the outage' });
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.status).toBe('SUCCEEDED');
		expect(backend.charges() - spent).toBe(5);
	});

	test('an outage longer than the time limit ends in an error that names the run and its request key', async () => {
		backend.sandbox.faults.set([{ route: 'GET /generations/:id', rate: 1, kinds: ['malformed'] }]);
		const r = await generate({ prompt: 'never readable', waiting: { timeoutMinutes: 0.05 } });
		expect(r.error?.message).toMatch(/Run gen_[0-9a-f]+ did not finish within 3 seconds/);
		expect(r.error?.description).toMatch(/GET \/generations\/\{id\} is not what this node expects/);
		expect(r.error?.context?.runId).toMatch(/^gen_/);
		expect(String(r.error?.context?.requestKey)).toMatch(/^n8n-/);
	});
});

test('5. "Retry On Fail" after a FAILED (refunded) run starts a fresh run under a derived key, charged once', async () => {
	const posts = backend.requests('POST /v1/generations').length;
	const spent = backend.charges();
	const r = await generate({ prompt: 'a flaky upstream [fail-first]' }, undefined, {
		nodeOverrides: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
	});
	expect(r.error).toBeUndefined();
	expect(r.items[0].json.status).toBe('SUCCEEDED');
	const keys = [...new Set(keysSince(posts))];
	expect(keys).toHaveLength(2);
	expect(keys[1]).toBe(`${keys[0]}-r2`);
	expect(r.items[0].json.requestKey).toBe(keys[1]);
	expect(backend.charges() - spent).toBe(5);
});

test('default request keys differ between loop passes of one execution ($runIndex), so each pass gets its own run', async () => {
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate({ prompt: 'loop pass', waitForCompletion: false }, undefined, { passes: 2 });
	expect(r.passes).toHaveLength(2);
	const keys = keysSince(posts);
	expect(keys).toHaveLength(2);
	// The loop pass, then the item's number (from 1).
	expect(keys[0]).toMatch(/-0-1$/);
	expect(keys[1]).toMatch(/-1-1$/);
	expect(r.passes[0][0].json.id).not.toBe(r.passes[1][0].json.id);
});

describe("6. a typed request key never returns another request's file", () => {
	test('one key for three items with different prompts: three runs, each with its own prompt', async () => {
		const spent = backend.charges();
		const r = await generate(
			{ prompt: '={{ $json.prompt }}', additionalFields: { requestKey: 'my-batch' } },
			prompts('red', 'green', 'blue'),
		);
		expect(r.error).toBeUndefined();
		expect(r.items.map((i) => i.json.prompt)).toEqual(['red', 'green', 'blue']);
		expect(r.items.map((i) => i.json.requestKey)).toEqual(['my-batch-1', 'my-batch-2', 'my-batch-3']);
		expect(backend.charges() - spent).toBe(15);
	});

	test('a later execution with the same key and a new prompt fails and explains request keys, charging nothing', async () => {
		await generate({ prompt: 'first prompt', additionalFields: { requestKey: 'fixed-key-6' } });
		const spent = backend.charges();
		const r = await generate({ prompt: 'second prompt', additionalFields: { requestKey: 'fixed-key-6' } });
		expect(r.error?.message).toMatch(
			/Request key "fixed-key-6" already belongs to run gen_[0-9a-f]+, made with another prompt/,
		);
		expect(r.error?.description).toMatch(/returns the first run for a repeated request key/);
		expect(backend.charges()).toBe(spent);
	});
});

describe('7. unexpected answers become readable errors', () => {
	test('empty answers everywhere: the execution ends with an error naming the endpoint and the Base URL', async () => {
		backend.sandbox.faults.set([
			{ route: 'POST /generations', rate: 1, kinds: ['malformed'] },
			{ route: 'GET /generations', rate: 1, kinds: ['malformed'] },
		]);
		const r = await generate({ prompt: 'nothing readable', waiting: { timeoutMinutes: 0.05 } });
		expect(r.run.status).toBe('error');
		expect(r.error?.description).toMatch(/POST \/generations is not what this node expects: no "generation" record/);
		expect(r.error?.description).toMatch(/Base URL/);
		expect(r.error?.context?.requestKey).toBeDefined();
	});

	test('a Base URL without /v1 is named as the likely cause', async () => {
		const r = await runNode({
			parameters: {
				resource: 'generation',
				operation: 'generate',
				kind: 'image',
				prompt: 'p',
				model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			},
			credentials: { mediaGenApi: { baseUrl: backend.sandbox.rootUrl, apiKey: backend.account.keys[0] } },
		});
		expect(r.error?.message).toMatch(/The service has no GET \/models at http:\/\/127\.0\.0\.1:\d+/);
		expect(r.error?.description).toMatch(/It does not end in \/v1/);
	});
});

describe('8. the catalogue cache does not hide new models or options', () => {
	const video = () => backend.sandbox.engine.models.find((m) => m.id === 'studio-video-v1')!;

	test('a model added on the service is used at once, not refused for five minutes', async () => {
		await generate({ prompt: 'warm the cache' });
		const added: Model = { ...JSON.parse(JSON.stringify(video())), id: 'brand-new-video-v1', name: 'Brand New Video' };
		backend.sandbox.engine.models.push(added);
		const r = await generate({ kind: 'video', model: 'brand-new-video-v1', prompt: 'a new model' });
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.model).toBe('brand-new-video-v1');
	});

	test('an option key the node does not know (fps) is passed through with its allowed values', async () => {
		const withFps = JSON.parse(JSON.stringify(video())) as Model & { options: Record<string, unknown> };
		Object.assign(withFps, { id: 'fps-video-v1', name: 'Frame Rate Video' });
		withFps.options.fps = [24, 30];
		backend.sandbox.engine.models.push(withFps);
		const r = await generate({
			kind: 'video',
			model: 'fps-video-v1',
			prompt: 'smooth',
			modelOptions: { mappingMode: 'defineBelow', value: { fps: '30' } },
		});
		expect(r.error).toBeUndefined();
		const sent = backend.requests('POST /v1/generations').pop()?.body as { options: IDataObject };
		expect(sent.options.fps).toBe(30);
		const refused = await generate({
			kind: 'video',
			model: 'fps-video-v1',
			prompt: 'smooth',
			modelOptions: { mappingMode: 'defineBelow', value: { fps: '60' } },
		});
		expect(refused.error?.message).toMatch(
			/fps \(fps\) 60 is not allowed for Frame Rate Video\. Allowed values: 24, 30/,
		);
	});
});

describe('9. smaller defects', () => {
	test('"Put Files In" = cover on a song keeps the takes and puts the covers beside them', async () => {
		const r = await generate({
			kind: 'music',
			model: 'cadence-song-v1',
			musicMode: 'Describe',
			prompt: 'a sea song',
			waiting: { binaryProperty: 'cover' },
		});
		const binary = r.items[0].binary!;
		expect(binary.cover.mimeType).toBe('audio/mpeg');
		expect(binary.cover_1.mimeType).toBe('audio/mpeg');
		expect(binary.cover_cover.mimeType).toBe('image/png');
		expect(binary.cover_cover_1.mimeType).toBe('image/png');
	});

	test('a Retry-After longer than the node waits says so, and that it did not wait', async () => {
		backend.sandbox.faults.set([{ route: 'POST /generations', script: ['429'], retryAfterSeconds: 600 }]);
		const spent = backend.charges();
		const posts = backend.requests('POST /v1/generations').length;
		const r = await generate({ prompt: 'asked to wait ten minutes' });
		// One submission, answered 429, and none after it (counted, not timed: the rate gate may pace the first).
		expect(backend.requests('POST /v1/generations').length - posts).toBe(1);
		expect(r.error?.description).toMatch(
			/asked to wait 600 s, longer than this node waits at once \(120 s\)\. The node did not wait\./,
		);
		expect(r.error?.description).not.toMatch(/already waited as long as the service asked/);
		expect(backend.charges()).toBe(spent);
	});

	test('a model without a prompt limit never shows "undefined" in a message', async () => {
		const bare = JSON.parse(
			JSON.stringify(backend.sandbox.engine.models.find((m) => m.id === 'studio-image-v1')),
		) as Partial<Model>;
		delete bare.prompt_max_chars;
		Object.assign(bare, { id: 'no-limit-image-v1', name: 'No Limit Image' });
		backend.sandbox.engine.models.push(bare as Model);
		const r = await generate({ model: 'no-limit-image-v1', prompt: '={{ "" }}' });
		expect(r.error?.message).toMatch(/Prompt is empty/);
		expect(`${r.error?.message} ${r.error?.description}`).not.toMatch(/undefined/);
	});

	test('an image/jpg file without a file name is accepted as JPEG', async () => {
		const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
		const r = await runNode({
			parameters: { resource: 'file', operation: 'upload', binaryPropertyName: 'data' },
			items: [{ json: {}, binary: { data: { data: jpeg.toString('base64'), mimeType: 'image/jpg' } as never } }],
			credentials: backend.apiCredentials,
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.mime).toBe('image/jpeg');
	});

	test('the time limit holds under endless 429s on the polls', async () => {
		backend.sandbox.faults.set([{ route: 'GET /generations/:id', rate: 1, kinds: ['429'], retryAfterSeconds: 5 }]);
		const polls = backend.requests('GET /v1/generations/').length;
		const r = await generate({ prompt: 'rate limited polls', waiting: { timeoutMinutes: 0.1 } });
		expect(r.error?.message).toMatch(/did not finish within 6 seconds/);
		// Each 429 asks for 5 seconds: the node waits them out rather than polling again at once, and ends at the
		// limit with the message above (a limit that did not hold would poll for ever).
		expect(backend.requests('GET /v1/generations/').length - polls).toBeLessThanOrEqual(3);
	});
});

describe('a spending cap: Max Credits per Execution', () => {
	test("runs that would cross the cap at the catalogue's price are refused up front, nothing charged", async () => {
		const spent = backend.charges();
		const posts = backend.requests('POST /v1/generations').length;
		const r = await generate(
			{ prompt: '={{ $json.prompt }}', additionalFields: { maxCredits: 12 } },
			prompts('a', 'b', 'c'),
		);
		expect(r.error?.message).toMatch(/Max Credits per Execution is 12: these 3 runs would cost 15 credits/);
		expect(r.error?.description).toMatch(/Nothing was submitted and nothing was charged/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.charges()).toBe(spent);
	});

	test('with Continue On Fail the runs within the cap go out and the rest are refused, each named', async () => {
		const spent = backend.charges();
		const r = await generate(
			{ prompt: '={{ $json.prompt }}', additionalFields: { maxCredits: 12 } },
			prompts('a', 'b', 'c'),
			{ nodeOverrides: continueOnFail },
		);
		expect(r.items.filter((i) => i.json.status === 'SUCCEEDED')).toHaveLength(2);
		const refused = r.items.find((i) => i.json.error);
		expect(refused?.json.error).toMatch(
			/Max Credits per Execution \(12\) reached: this run would cost 5 credits and 10 credits are already spent/,
		);
		expect(refused?.json.errorCode).toBe('spending_cap');
		expect(backend.charges() - spent).toBe(10);
	});

	test("the first accepted run's price predicts the rest, so the cap holds with non-default options", async () => {
		const spent = backend.charges();
		const options = { mappingMode: 'defineBelow', value: { resolution: '720p' } };
		const r = await generate(
			{
				kind: 'video',
				model: 'studio-video-v1',
				prompt: '={{ $json.prompt }}',
				modelOptions: options,
				additionalFields: { maxCredits: 40 },
			},
			prompts('one', 'two', 'three'),
			{ nodeOverrides: continueOnFail },
		);
		const accepted = r.items.filter((i) => i.json.status === 'SUCCEEDED');
		const price = Number(accepted[0].json.cost);
		expect(price).toBeGreaterThan(20);
		expect(accepted).toHaveLength(Math.floor(40 / price));
		expect(backend.charges() - spent).toBeLessThanOrEqual(40);
	});
});
