// Every other operation of the node, through WorkflowExecute against the sandbox.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { makePng } from '../../sandbox/media';
import { getModelOptionFields, searchModels } from '../../nodes/MediaGen/methods';
import { loadOptionsContext, runNode } from '../helpers/engine';
import { runEnded, startBackend, type TestBackend } from '../helpers/sandbox';
import { runCharges } from '../helpers/ledger';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend({
		rateLimits: {
			submitPerIdentity: 200,
			submitPerAddress: 600,
			readPerIdentity: 2000,
			readPerAddress: 6000,
			uploadPerIdentity: 100,
		},
	});
});
afterAll(async () => backend.sandbox.close());

const node = (parameters: IDataObject, items?: INodeExecutionData[]) =>
	runNode({ parameters, items, credentials: backend.apiCredentials });
const binary = (mime: string, bytes: Buffer, fileName: string) =>
	({ data: bytes.toString('base64'), mimeType: mime, fileName }) as never;
const submitDirect = (prompt: string, extra: IDataObject = {}) =>
	fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${backend.account.keys[0]}`, 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', prompt, options: { resolution: '1K' }, ...extra }),
	}).then(async (r) => ((await r.json()) as { generation: IDataObject }).generation);

describe('Generation → Get, Wait, Get Many', () => {
	test('Wait picks up a run started without waiting, and Get reads it with its files', async () => {
		const started = await node({
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: 'later',
			waitForCompletion: false,
		});
		const id = started.items[0].json.id as string;
		const waited = await node(
			{ resource: 'generation', operation: 'wait', runId: '={{ $json.id }}', waiting: { pollIntervalSeconds: 1 } },
			[{ json: { id } }],
		);
		expect(waited.items[0].json).toMatchObject({ id, status: 'SUCCEEDED' });
		expect(waited.items[0].binary?.data.mimeType).toBe('image/png');
		const got = await node({ resource: 'generation', operation: 'get', runId: id, downloadOutputs: false });
		expect(got.items[0].json.status).toBe('SUCCEEDED');
		expect(got.items[0].binary).toBeUndefined();
	});

	test('a file that cannot be downloaded: the advice names the run and the Get that fetches it again; charged once', async () => {
		const id = (await submitDirect('file out of reach')).id as string;
		await runEnded(backend.sandbox, id);
		// The file's address stops answering (port 1 here refuses), as a file host that is down would.
		backend.sandbox.engine.runs.get(id)!.outputs[0].url = 'http://127.0.0.1:1/gone.png';
		const waited = await node({ resource: 'generation', operation: 'wait', runId: id });
		expect(waited.error?.description).toBe(
			'The files stay available at their URLs (in "outputs"). Run Generation → Get with run ID ' +
				`${id} to download them again (nothing was charged for the download).`,
		);
		expect(waited.error?.context).toMatchObject({ runId: id, status: 'SUCCEEDED' });
		expect(runCharges(backend.sandbox, id)).toHaveLength(1);
	});

	test('every run output has a readable date beside createdAt (milliseconds), which stays', async () => {
		const started = await node({
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: 'dated',
			waitForCompletion: false,
		});
		const run = started.items[0].json;
		const got = await node({ resource: 'generation', operation: 'get', runId: run.id, downloadOutputs: false });
		const listed = await node({ resource: 'generation', operation: 'getMany', returnAll: false, limit: 1 });
		for (const json of [run, got.items[0].json, listed.items[0].json]) {
			expect(typeof json.createdAt).toBe('number');
			expect(json.createdDate).toBe(new Date(json.createdAt as number).toISOString());
			// Beside it, in Table view's column order.
			const keys = Object.keys(json);
			expect(keys.indexOf('createdDate')).toBe(keys.indexOf('createdAt') + 1);
		}
	});

	test('Get of a failed run returns it with its refund; an unknown id says not found', async () => {
		const failed = await submitDirect('x [fail]');
		await runEnded(backend.sandbox, String(failed.id));
		const got = await node({ resource: 'generation', operation: 'get', runId: failed.id });
		expect(got.items[0].json).toMatchObject({ status: 'FAILED', refunded: 5 });
		const missing = await node({ resource: 'generation', operation: 'get', runId: 'gen_nope' });
		expect(missing.error?.message).toBe('No such record, or it belongs to another account');
	});

	test('Get Many: Return All follows next_before across pages; limit and filters apply', async () => {
		const { account: fresh, creds } = ownAccount(backend.sandbox);
		for (let i = 0; i < 7; i++) {
			const res = await fetch(`${backend.sandbox.baseUrl}/generations`, {
				method: 'POST',
				headers: { authorization: `Bearer ${fresh.keys[0]}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					kind: 'image',
					model: i % 2 ? 'kestrel-edit' : 'studio-image-v1',
					prompt: i === 3 ? 'p3 [fail]' : `p${i}`,
					options: { resolution: '1K' },
				}),
			});
			// One at a time, each created after the one before ended.
			await runEnded(backend.sandbox, ((await res.json()) as { generation: { id: string } }).generation.id);
		}
		const before = backend.requests('GET /v1/generations?').length;
		const all = await runNode({
			parameters: { resource: 'generation', operation: 'getMany', returnAll: true, listOptions: { pageSize: 3 } },
			credentials: creds,
		});
		expect(all.items.map((i) => i.json.prompt)).toEqual(['p6', 'p5', 'p4', 'p3 [fail]', 'p2', 'p1', 'p0']);
		expect(backend.requests('GET /v1/generations?').length - before).toBe(3);
		const limited = await runNode({
			parameters: {
				resource: 'generation',
				operation: 'getMany',
				returnAll: false,
				limit: 4,
				listOptions: { pageSize: 3 },
			},
			credentials: creds,
		});
		expect(limited.items).toHaveLength(4);
		const byModel = await runNode({
			parameters: {
				resource: 'generation',
				operation: 'getMany',
				returnAll: true,
				runFilters: { model: 'kestrel-edit' },
			},
			credentials: creds,
		});
		expect(byModel.items.map((i) => i.json.prompt)).toEqual(['p5', 'p3 [fail]', 'p1']);
		const failed = await runNode({
			parameters: {
				resource: 'generation',
				operation: 'getMany',
				returnAll: true,
				runFilters: { status: 'FAILED', kind: 'image' },
			},
			credentials: creds,
		});
		expect(failed.items.map((i) => i.json.prompt)).toEqual(['p3 [fail]']);
	});
});

describe('File → Upload', () => {
	test('uploads a binary property and returns url, type and size; the url works as a reference image', async () => {
		const png = makePng('upload-me');
		const r = await node({ resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, [
			{ json: {}, binary: { data: binary('image/png', png, 'a.png') } },
		]);
		expect(r.items[0].json).toMatchObject({
			mime: 'image/png',
			bytes: png.length,
			url: expect.stringContaining('/files/uploads/'),
		});
		const served = Buffer.from(await (await fetch(String(r.items[0].json.url))).arrayBuffer());
		expect(served.equals(png)).toBe(true);
	});

	test('a wrong media type and an oversize file are refused before any request', async () => {
		const slots = backend.requests('POST /v1/uploads').length;
		const wrong = await node({ resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, [
			{ json: {}, binary: { data: binary('application/pdf', Buffer.from('%PDF-1.4'), 'a.pdf') } },
		]);
		expect(wrong.error?.message).toMatch(/application\/pdf, which is not accepted here/);
		expect(wrong.error?.message).toMatch(/Accepted types: PNG, JPEG, WebP, MP4, MOV, MP3, WAV, M4A/);
		const big = await node({ resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, [
			{ json: {}, binary: { data: binary('image/jpeg', Buffer.alloc(10 * 1024 * 1024 + 1), 'big.jpg') } },
		]);
		expect(big.error?.message).toMatch(/image files may be at most 10 MB/);
		expect(backend.requests('POST /v1/uploads').length).toBe(slots);
	});

	test('an expired upload slot gives a clear error', async () => {
		const scale = backend.sandbox.config.timeScale;
		backend.sandbox.config.timeScale = 0.000001; // the 5-minute slot lasts 0.3 ms
		const r = await node({ resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, [
			{ json: {}, binary: { data: binary('image/png', makePng('late'), 'late.png') } },
		]);
		backend.sandbox.config.timeScale = scale;
		backend.sandbox.limiter.clear();
		expect(r.error?.message).toMatch(/the upload slot expired before the file was sent/);
		expect(r.error?.description).toMatch(/Run the node again/);
	});
});

describe('Account, Model, App', () => {
	test('Account → Get', async () => {
		const r = await node({ resource: 'account', operation: 'get' });
		expect(r.items[0].json).toMatchObject({
			tier: 'paid',
			concurrency: 3,
			watermarked: false,
			email: expect.any(String),
		});
	});

	test('Account → Get with no answer (connection dropped three times): the route, the reason and what to check', async () => {
		backend.sandbox.faults.set([{ route: 'GET /me', script: ['drop', 'drop', 'drop'] }]);
		const spent = backend.charges();
		const r = await node({ resource: 'account', operation: 'get' });
		backend.sandbox.faults.set([]);
		expect(r.error?.message).toBe(
			'No answer from the Media Generation API to GET /me: The connection to the server was closed unexpectedly, ' +
				'perhaps it is offline. You can retry the request immediately or wait and retry later.',
		);
		expect(r.error?.description).toMatch(/^Check the Base URL in the credential \(now http:.*reachable from n8n\.$/);
		expect(backend.charges()).toBe(spent);
	});

	test('Model → Get Many with filters', async () => {
		const all = await node({ resource: 'model', operation: 'getMany' });
		expect(all.items).toHaveLength(30);
		const videos = await node({ resource: 'model', operation: 'getMany', modelFilters: { kind: 'video' } });
		expect(videos.items).toHaveLength(15);
		const free = await node({ resource: 'model', operation: 'getMany', modelFilters: { freeTier: true } });
		expect(free.items.map((i) => i.json.id).sort()).toEqual(['studio-image-v1', 'studio-video-v1']);
	});

	test('App → Get Many with kind, category and tag filters', async () => {
		expect((await node({ resource: 'app', operation: 'getMany' })).items).toHaveLength(4);
		expect(
			(await node({ resource: 'app', operation: 'getMany', appFilters: { kind: 'music' } })).items.map(
				(i) => i.json.slug,
			),
		).toEqual(['birthday-song']);
		expect(
			(await node({ resource: 'app', operation: 'getMany', appFilters: { category: 'posters' } })).items.map(
				(i) => i.json.slug,
			),
		).toEqual(['couple-poster']);
		expect((await node({ resource: 'app', operation: 'getMany', appFilters: { tag: 'gift' } })).items).toHaveLength(3);
		expect((await node({ resource: 'app', operation: 'getMany' })).items[0].json.looks).toBeDefined();
	});
});

describe("list operations run once per input item, as n8n's own do", () => {
	const pairedWith = (items: INodeExecutionData[], item: number) =>
		items.filter((i) => (i.pairedItem as { item: number }).item === item).map((i) => i.json);
	const twoItems = (a: IDataObject, b: IDataObject): INodeExecutionData[] => [{ json: a }, { json: b }];

	test('Model → Get Many: each item its own filter, each model paired with its item', async () => {
		const r = await node(
			{ resource: 'model', operation: 'getMany', modelFilters: { kind: '={{ $json.kind }}' } },
			twoItems({ kind: 'video' }, { kind: 'music' }),
		);
		expect(pairedWith(r.items, 0)).toHaveLength(15);
		expect(pairedWith(r.items, 0).every((m) => m.kind === 'video')).toBe(true);
		expect(pairedWith(r.items, 1).length).toBeGreaterThan(0);
		expect(pairedWith(r.items, 1).every((m) => m.kind === 'music')).toBe(true);
		expect(r.items).toHaveLength(pairedWith(r.items, 0).length + pairedWith(r.items, 1).length);
	});

	test('App → Get Many: each item its own filter, each app paired with its item', async () => {
		const r = await node(
			{ resource: 'app', operation: 'getMany', appFilters: { kind: '={{ $json.kind }}' } },
			twoItems({ kind: 'music' }, { kind: 'image' }),
		);
		expect(pairedWith(r.items, 0).map((a) => a.slug)).toEqual(['birthday-song']);
		expect(pairedWith(r.items, 1).length).toBeGreaterThan(0);
		expect(pairedWith(r.items, 1).every((a) => a.kind === 'image')).toBe(true);
	});

	test('Generation → Get Many: each item its own limit, each run paired with its item', async () => {
		await submitDirect('listed once');
		await submitDirect('listed twice');
		const r = await node(
			{ resource: 'generation', operation: 'getMany', limit: '={{ $json.limit }}' },
			twoItems({ limit: 1 }, { limit: 2 }),
		);
		expect(pairedWith(r.items, 0)).toHaveLength(1);
		expect(pairedWith(r.items, 1)).toHaveLength(2);
		expect(pairedWith(r.items, 1)[0].id).toBe(pairedWith(r.items, 0)[0].id);
	});
});

describe('App → Run Look', () => {
	const look = (photos: IDataObject[], extra: IDataObject = {}) => ({
		resource: 'app',
		operation: 'runLook',
		app: { __rl: true, mode: 'id', value: 'couple-poster' },
		look: 'noir',
		photos: { slot: photos },
		waiting: { pollIntervalSeconds: 1 },
		...extra,
	});
	const photoItem = (): INodeExecutionData => ({
		json: {},
		binary: {
			first: binary('image/png', makePng('first'), 'first.png'),
			second: binary('image/jpeg', makePng('second'), 'second.jpg'),
			odd: binary('image/webp', makePng('odd'), 'odd.webp'),
		},
	});

	test('sends the look prompt, model, options completed with defaults, and photos in slot order', async () => {
		const r = await node(
			look([
				{ slotId: 'place', urls: 'https://places.example/beach.jpg' },
				{ slotId: 'second', binaryProperties: 'second' },
				{ slotId: 'first', binaryProperties: 'first' },
			]),
			[photoItem()],
		);
		expect(r.error).toBeUndefined();
		expect(r.items[0].json).toMatchObject({ status: 'SUCCEEDED', app: 'couple-poster', look: 'noir' });
		const sent = backend.requests('POST /v1/generations').pop()?.body as IDataObject;
		expect(sent.prompt).toBe('A film-noir movie poster of the two people from the photos, dramatic shadows');
		expect(sent.model).toBe('orchid-portrait');
		expect(sent.options).toEqual({ resolution: '2K', aspect: '3:4', format: 'JPG' });
		const urls = sent.imageUrls as string[];
		expect(urls).toHaveLength(3);
		expect(urls[2]).toBe('https://places.example/beach.jpg');
		const [first, second] = await Promise.all(
			urls.slice(0, 2).map(async (u) => Buffer.from(await (await fetch(u)).arrayBuffer())),
		);
		expect(first.equals(makePng('first'))).toBe(true);
		expect(second.equals(makePng('second'))).toBe(true);
	});

	test('slot min/max and accept are enforced before any request', async () => {
		const posts = backend.requests('POST /v1/generations').length;
		const uploads = backend.requests('POST /v1/uploads').length;
		const missing = await node(look([{ slotId: 'first', binaryProperties: 'first' }]), [photoItem()]);
		expect(missing.error?.message).toBe('Photos: the slot "Second person" takes exactly 1 photo; 0 given');
		const tooMany = await node(
			look([
				{ slotId: 'first', binaryProperties: 'first, second' },
				{ slotId: 'second', binaryProperties: 'second' },
			]),
			[photoItem()],
		);
		expect(tooMany.error?.message).toBe('Photos: the slot "First person" takes exactly 1 photo; 2 given');
		const wrongType = await node(
			look([
				{ slotId: 'first', binaryProperties: 'first' },
				{ slotId: 'second', binaryProperties: 'second' },
				{ slotId: 'place', binaryProperties: 'odd' },
			]),
			[photoItem()],
		);
		expect(wrongType.error?.message).toBe(
			'Photos (Background place): the file in "odd" is image/webp; this slot accepts image/png,image/jpeg',
		);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.requests('POST /v1/uploads').length).toBe(uploads);
	});

	test('a batch where one item lacks its photo: nothing is uploaded or submitted, and that item is named', async () => {
		const posts = backend.requests('POST /v1/generations').length;
		const uploads = backend.requests('POST /v1/uploads').length;
		const spent = backend.charges();
		const slots = [
			{ slotId: 'first', binaryProperties: 'first' },
			{ slotId: 'second', binaryProperties: 'second' },
		];
		const r = await node(look(slots), [photoItem(), { json: {} }]);
		expect(r.error?.message).toMatch(
			/^1 of 2 items cannot be sent: item 2: Photos \(First person\): the input item has no binary property "first"/,
		);
		expect(r.error?.description).toMatch(/Nothing was submitted and nothing was charged/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
		expect(backend.requests('POST /v1/uploads').length).toBe(uploads);
		expect(backend.charges()).toBe(spent);
	});

	test('a music look carries its mode', async () => {
		const r = await node({
			resource: 'app',
			operation: 'runLook',
			app: { __rl: true, mode: 'id', value: 'birthday-song' },
			look: 'lofi',
			waiting: { pollIntervalSeconds: 1 },
		});
		expect(r.error).toBeUndefined();
		const sent = backend.requests('POST /v1/generations').pop()?.body as IDataObject;
		expect(sent.options).toEqual({ resolution: 'song', tier: 'Instrumental', title: 'Happy Birthday Lo-fi' });
		expect(r.items[0].binary?.data_1).toBeDefined();
	});
});

describe('catalogue cache', () => {
	test('opening the model dropdown twice reads GET /models once; the options mapper needs no request', async () => {
		// A fresh sandbox has its own address, so nothing of it is cached yet (caches are per Base URL).
		const backend = await startBackend();
		const reads = () => backend.requests('GET /v1/models').length;
		const before = reads();
		const ctx = loadOptionsContext(
			{
				authentication: 'apiKey',
				resource: 'generation',
				operation: 'generate',
				kind: 'video',
				model: { __rl: true, mode: 'list', value: 'lumora-motion-3' },
			},
			backend.apiCredentials,
		);
		const first = await searchModels.call(ctx);
		const second = await searchModels.call(ctx);
		const fields = await getModelOptionFields.call(ctx);
		expect(first.results).toHaveLength(15);
		expect(second.results).toEqual(first.results);
		expect(fields.fields.map((f) => f.id)).toEqual(['resolution', 'aspect', 'duration', 'audio']);
		expect(reads() - before).toBe(1);
		await backend.sandbox.close();
	});

	test('the anonymous credential marks models the free tier does not cover', async () => {
		const ctx = loadOptionsContext(
			{ authentication: 'anonymous', resource: 'generation', operation: 'generate', kind: 'image' },
			backend.anonCredentials('anon-dropdown-1'),
		);
		const { results } = await searchModels.call(ctx);
		expect(results[0].name).toBe('Image · Studio Image (Studio) · 5 credits, free tier');
		expect(results.slice(1).every((r) => r.name.endsWith('— needs an API key'))).toBe(true);
	});
});
