// Generation → Estimate Cost through n8n's engine against the sandbox (issue 34): exact prices for combinations the
// account has run, the catalogue's price at defaults, null with a reason otherwise, Generate's own refusals, nothing
// submitted (ledger unchanged), and `enough` right against GET /me.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { mcpCall, mcpTools } from '../helpers/toolHost';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend({ timeScale: 0.002, durations: { pendingMs: 20, image: 100, video: 200, music: 100 } });
});
afterAll(async () => backend.sandbox.close());

/** Kind, model and the price-setting options from each item, so one step mixes kinds and models. */
const fromItems: IDataObject = {
	kind: '={{ $json.kind }}',
	model: '={{ $json.model }}',
	prompt: '={{ $json.prompt }}',
	modelOptions: {
		mappingMode: 'defineBelow',
		value: {
			resolution: '={{ $json.resolution ?? "" }}',
			duration: '={{ $json.duration ?? "" }}',
			audio: '={{ $json.audio ?? "" }}',
		},
	},
	downloadOutputs: false,
};
const estimate = (creds: object, items: INodeExecutionData[], extra: IDataObject = {}) =>
	generate(creds as never, { ...fromItems, operation: 'estimateCost', ...extra }, items);
const historyReads = () => backend.requests('GET /v1/generations').filter((e) => !/generations\/./.test(e.path)).length;
const item = (json: IDataObject) => ({ json: { prompt: 'a quiet harbour at dawn', ...json } });

const VIDEO_8S_SOUND = { kind: 'video', model: 'lumora-motion-3-fast', duration: 8, audio: true }; // 180
const IMAGE_4K = { kind: 'image', model: 'lumora-image-2', resolution: '4K' }; // 38
const VIDEO_10S = { kind: 'video', model: 'kestrel-move', duration: 10 }; // 310
const IMAGE_DEFAULT = { kind: 'image', model: 'studio-image-v1' }; // 5
const SONG = { kind: 'music', model: 'cadence-song-v1' }; // 60
const VIDEO_DEFAULT = { kind: 'video', model: 'lumora-motion-3-fast' }; // 90

test('exact price from an earlier run, catalogue price at defaults, null with why otherwise; nothing sent', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const seed = await generate(own.creds, fromItems, [item(VIDEO_8S_SOUND)]);
	const seedRun = String(seed.items[0].json.id);
	expect(seed.items[0].json.cost).toBe(180);
	const posts = backend.requests('POST /v1/generations').length;
	const spent = backend.charges(own.id);
	const reads = historyReads();
	const r = await estimate(own.creds, [
		item(VIDEO_8S_SOUND),
		item(VIDEO_DEFAULT),
		item({ ...VIDEO_DEFAULT, duration: 8 }),
	]);
	expect(r.error).toBeUndefined();
	expect(r.items.map((i) => [i.json.credits, i.json.basis])).toEqual([
		[180, `what your last identical run cost (run ${seedRun})`],
		[90, 'list price'],
		[
			null,
			'unknown: this account has no earlier run of lumora-motion-3-fast with resolution 720p, duration 8, audio ' +
				'false (looked through its newest 1 run)',
		],
		[null, null],
	]);
	expect(r.items[0].json).toMatchObject({ model: 'lumora-motion-3-fast', kind: 'video', options: { duration: 8 } });
	expect(r.items[3].json).toMatchObject({
		estimate: 'Total: 270 credits + 1 price unknown; 99,820 left; enough for the known prices',
		summary: true,
		totalCredits: 270,
		unknownItems: 1,
		creditsLeft: 100_000 - 180,
		enough: null,
	});
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges(own.id)).toBe(spent);
	// One history read (one page here) for the whole batch.
	expect(historyReads() - reads).toBe(1);
});

test('the history read stops at 3 pages of 100: a combination run before the newest 300 is unknown, and says so', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const seed = await generate(own.creds, fromItems, [item(VIDEO_8S_SOUND)]);
	const seedRun = backend.sandbox.engine.runs.get(String(seed.items[0].json.id))!;
	// 300 later runs of another model on the same account, as if it had been busy since (state set directly:
	// 300 real submissions would take 15 minutes at 20 a minute).
	for (let n = 1; n <= 300; n++) {
		const later = {
			...seedRun,
			id: `gen_later${n}`,
			kind: 'image' as const,
			model: 'studio-image-v1',
			createdAt: seedRun.createdAt + n,
		};
		backend.sandbox.engine.runs.set(later.id, later);
	}
	const reads = historyReads();
	const r = await estimate(own.creds, [item(VIDEO_8S_SOUND)]);
	expect(r.items[0].json.credits).toBeNull();
	expect(r.items[0].json.basis).toBe(
		'unknown: this account has no earlier run of lumora-motion-3-fast with resolution 720p, duration 8, audio ' +
			'true (looked through its newest 300 runs)',
	);
	expect(historyReads() - reads).toBe(3);
});

test('over 20 mixed items the account has run before, the estimate equals what Generate then charges', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const combos = [VIDEO_8S_SOUND, IMAGE_4K, VIDEO_10S];
	const seeded = await generate(own.creds, fromItems, combos.map(item));
	expect(seeded.items.map((i) => i.json.cost)).toEqual([180, 38, 310]);
	const mix = [...combos, IMAGE_DEFAULT, SONG, VIDEO_DEFAULT];
	const items = Array.from({ length: 20 }, (_, n) => item({ ...mix[n % mix.length], prompt: `scene ${n}` }));
	const estimated = await estimate(own.creds, items);
	const perItem = estimated.items.slice(0, 20).map((i) => i.json.credits);
	expect(perItem.every((c) => typeof c === 'number')).toBe(true);
	const summary = estimated.items[20].json;
	expect(summary.unknownItems).toBe(0);
	const before = backend.charges(own.id);
	const ran = await generate(own.creds, fromItems, items);
	expect(ran.error).toBeUndefined();
	expect(ran.items.map((i) => i.json.cost)).toEqual(perItem);
	expect(backend.charges(own.id) - before).toBe(summary.totalCredits);
});

test('bad items get the same refusals as Generate, and nothing is sent or charged', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const items = [item(IMAGE_DEFAULT), item({ ...IMAGE_DEFAULT, prompt: 'x'.repeat(4700) }), item(IMAGE_DEFAULT)];
	const posts = backend.requests('POST /v1/generations').length;
	const estimated = await estimate(own.creds, items);
	const generated = await generate(own.creds, fromItems, items);
	expect(estimated.error?.message).toMatch(/^1 of 3 items cannot be sent: item 2 \("x{40}…"\): Prompt is 4700/);
	expect(estimated.error?.message).toBe(generated.error?.message);
	expect(estimated.error?.description).toBe(generated.error?.description);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges(own.id) + 0).toBe(0);
});

test('enough: true, false, or null when a price is unknown, against the credits GET /me gives', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100 });
	const at = (items: INodeExecutionData[]) => estimate(own.creds, items).then((r) => r.items.at(-1)!.json);
	expect(await at([item(VIDEO_DEFAULT), item(IMAGE_DEFAULT)])).toMatchObject({
		totalCredits: 95,
		creditsLeft: 100,
		enough: true,
	});
	expect(await at([item(VIDEO_DEFAULT), item(VIDEO_DEFAULT)])).toMatchObject({ totalCredits: 180, enough: false });
	expect(await at([item(IMAGE_DEFAULT), item(IMAGE_4K)])).toMatchObject({
		totalCredits: 5,
		unknownItems: 1,
		enough: null,
	});
	expect(await at([item(VIDEO_DEFAULT), item(VIDEO_DEFAULT), item(IMAGE_4K)])).toMatchObject({ enough: false });
});

test('the summary on every item instead of its own', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const r = await estimate(own.creds, [item(IMAGE_DEFAULT), item(SONG)], { estimateSummary: 'everyItem' });
	expect(r.items).toHaveLength(2);
	expect(r.items.map((i) => [i.json.credits, i.json.totalCredits, i.json.enough])).toEqual([
		[5, 65, true],
		[60, 65, true],
	]);
});

// n8n's Table view makes a column of every field any item has, and shows a red "undefined" where an item lacks it.
test('Table view: every item has the same fields, none undefined, and the total opens the summary item', async () => {
	const own = ownAccount(backend.sandbox, { credits: 4_985 });
	const three = [item(IMAGE_DEFAULT), item(IMAGE_DEFAULT), item(IMAGE_DEFAULT)];
	const r = await estimate(own.creds, three);
	expect(r.items).toHaveLength(4);
	const columns = Object.keys(r.items[0].json);
	expect(columns[0]).toBe('estimate');
	for (const { json } of r.items) {
		expect(Object.keys(json).sort()).toEqual([...columns].sort());
		expect(Object.values(json)).not.toContain(undefined);
	}
	expect(r.items.map((i) => i.json.estimate)).toEqual([
		'5 credits (list price)',
		'5 credits (list price)',
		'5 credits (list price)',
		'Total: 15 credits; 4,985 left; enough',
	]);
	// The fields workflows read stay as they were.
	expect(r.items[3].json).toMatchObject({ summary: true, totalCredits: 15, unknownItems: 0, creditsLeft: 4_985 });
	const every = await estimate(own.creds, three.slice(0, 2), { estimateSummary: 'everyItem' });
	expect(every.items.map((i) => i.json.estimate)).toEqual([
		'5 credits (list price). Total: 10 credits; 4,985 left; enough',
		'5 credits (list price). Total: 10 credits; 4,985 left; enough',
	]);
});

test('an anonymous ID: no balance and no history read, so no free wallet is opened for it', async () => {
	const anonId = `anon-estimate-${Date.now()}`;
	const wallets = (backend.sandbox.engine as unknown as { wallets: Map<string, unknown> }).wallets;
	const me = backend.requests('GET /v1/me').length;
	const r = await estimate(
		backend.anonCredentials(anonId),
		[item(IMAGE_DEFAULT), item({ ...IMAGE_DEFAULT, resolution: '2K' })],
		{ authentication: 'anonymous' },
	);
	expect(r.error).toBeUndefined();
	expect(r.items.map((i) => i.json.credits)).toEqual([5, null, null]);
	expect(r.items[1].json.basis).toMatch(
		/the run history of an anonymous ID is not read, so that no free wallet is opened/,
	);
	expect(r.items[2].json).toMatchObject({ totalCredits: 5, unknownItems: 1, creditsLeft: null, enough: null });
	expect(backend.requests('GET /v1/me').length).toBe(me);
	expect(wallets.has(anonId)).toBe(false);
});

test('as an AI tool: the agent reads what it does, and a call prices the run without sending it', async () => {
	const setup = {
		credentials: backend.apiCredentials,
		parameters: {
			resource: 'generation',
			operation: 'estimateCost',
			kind: 'video',
			model: { __rl: true, mode: 'id', value: 'lumora-motion-3-fast' },
			prompt: "={{ $fromAI('prompt', 'What the video shows', 'string') }}",
		},
	};
	const [tool] = await mcpTools(setup);
	expect(tool.description).toMatch(/^Tells what a Media Generation run with this prompt and these options would cost/);
	expect(tool.description).toContain('Free: starts no run and charges nothing.');
	const posts = backend.requests('POST /v1/generations').length;
	const answer = JSON.parse(await mcpCall(setup, { prompt: 'a kite over the dunes' })) as IDataObject[];
	expect(answer[0]).toMatchObject({ credits: 90, basis: 'list price', model: 'lumora-motion-3-fast' });
	expect(answer[1]).toMatchObject({ summary: true, totalCredits: 90, unknownItems: 0, enough: true });
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
});

test("App → Estimate Cost: a look priced through Run Look's own preparation and refusals, nothing sent", async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const lookOf = (slots: IDataObject[]) => ({
		resource: 'app',
		operation: 'estimateCost',
		app: { __rl: true, mode: 'id', value: 'couple-poster' },
		look: 'noir',
		photos: { slot: slots },
	});
	const both = [
		{ slotId: 'first', urls: 'https://places.example/a.jpg' },
		{ slotId: 'second', urls: 'https://places.example/b.jpg' },
	];
	const posts = backend.requests('POST /v1/generations').length;
	const uploads = backend.requests('POST /v1/uploads').length;
	const r = await runNode({ parameters: lookOf(both), items: [{ json: {} }], credentials: own.creds });
	expect(r.items[0].json).toMatchObject({
		credits: 20,
		basis: 'list price',
		model: 'orchid-portrait',
		app: 'couple-poster',
		look: 'noir',
		options: { resolution: '2K', aspect: '3:4', format: 'JPG' },
	});
	const refused = await runNode({
		parameters: lookOf(both.slice(0, 1)),
		items: [{ json: {} }],
		credentials: own.creds,
	});
	expect(refused.error?.message).toBe('Photos: the slot "Second person" takes exactly 1 photo; 0 given');
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.requests('POST /v1/uploads').length).toBe(uploads);
});
