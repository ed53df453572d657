// Generate through n8n-core's WorkflowExecute against the sandbox over real HTTP.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { makePng } from '../../sandbox/media';
import type { RunOptions } from '../helpers/engine';
import { generate as generateRun } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { until } from '../helpers/until';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

const generate = (params: IDataObject, items?: INodeExecutionData[], extra: Partial<RunOptions> = {}) =>
	generateRun(backend.apiCredentials, params, items, extra);

function png(name = 'photo.png'): INodeExecutionData['binary'] {
	const data = makePng(name);
	return {
		data: { data: data.toString('base64'), mimeType: 'image/png', fileName: name, fileExtension: 'png' } as never,
	};
}

test('image with options and format: the file comes back with the right type, and unset options use defaults', async () => {
	const before = backend.charges();
	const r = await generate({
		kind: 'image',
		model: 'lumora-image-2',
		prompt: 'a red bicycle',
		modelOptions: { mappingMode: 'defineBelow', value: { format: 'WEBP', aspect: '16:9' } },
	});
	expect(r.error).toBeUndefined();
	const [item] = r.items;
	expect(item.json.options).toEqual({ resolution: '2K', aspect: '16:9', format: 'WEBP' });
	expect(item.binary?.data.mimeType).toBe('image/webp');
	expect(item.binary?.data.fileName).toMatch(/\.webp$/);
	const sent = backend.requests('POST /v1/generations').pop()?.body as IDataObject;
	expect(sent.options).toEqual({ resolution: '2K', format: 'WEBP', aspect: '16:9' });
	expect(backend.charges() - before).toBe(25);
});

test('one step, mixed kinds: Kind and Model from each item by expression', async () => {
	const before = backend.charges();
	const jobs = [
		{ kind: 'video', model: 'studio-video-v1', prompt: 'a wave at dusk' },
		{ kind: 'Image', model: 'studio-image-v1', prompt: 'a lighthouse' },
		{ kind: 'music', model: 'cadence-song-v1', prompt: 'a calm song about the sea' },
		{ kind: 'image', model: 'studio-image-v1', prompt: 'a harbour' },
	];
	const r = await generate(
		{ kind: '={{ $json.kind }}', model: '={{ $json.model }}', prompt: '={{ $json.prompt }}' },
		jobs.map((json) => ({ json })),
	);
	expect(r.error).toBeUndefined();
	expect(r.items.map((i) => [i.json.kind, i.json.model, i.json.status])).toEqual(
		jobs.map((j) => [j.kind.toLowerCase(), j.model, 'SUCCEEDED']),
	);
	expect(r.items.map((i) => i.binary?.data.mimeType)).toEqual(['video/mp4', 'image/png', 'audio/mpeg', 'image/png']);
	const sent = backend.requests('POST /v1/generations').slice(-4);
	expect(sent.map((s) => (s.body as IDataObject).kind).sort()).toEqual(['image', 'image', 'music', 'video']);
	expect(backend.charges() - before).toBe(r.items.reduce((sum, i) => sum + Number(i.json.cost), 0));
});

test('Kind from an expression that gives something else is refused, naming the value, and nothing is spent', async () => {
	const before = backend.charges();
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate({ kind: '={{ $json.kind }}', model: 'studio-image-v1', prompt: 'a cat' }, [
		{ json: { kind: 'photo' } },
	]);
	expect(r.error?.message).toBe('Kind: "photo" is not image, video or music');
	expect(r.error?.description).toMatch(
		/^Nothing was submitted and nothing was charged: .*make the Kind expression give one of image, video, music/,
	);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges()).toBe(before);
});

test('image-to-video from an input binary with an end frame', async () => {
	const r = await generate(
		{
			kind: 'video',
			model: 'lumora-motion-3-fast',
			prompt: 'the photo comes alive',
			referenceImageProperties: 'data',
			additionalFields: { endFrameProperty: 'last' },
		},
		[{ json: {}, binary: { ...png('start.png'), last: png('end.png')!.data } }],
	);
	expect(r.error).toBeUndefined();
	const [item] = r.items;
	expect(item.json.status).toBe('SUCCEEDED');
	expect(item.binary?.data.mimeType).toBe('video/mp4');
	const sent = backend.requests('POST /v1/generations').pop()?.body as IDataObject;
	expect((sent.imageUrls as string[])[0]).toContain('/files/uploads/');
	expect(String(sent.endImageUrl)).toContain('/files/uploads/');
	expect(backend.requests('POST /v1/uploads')).toHaveLength(2);
	const bytes = Buffer.from(item.binary!.data.data, 'base64');
	expect(bytes.subarray(4, 8).toString('ascii')).toBe('ftyp');
});

test.each([
	['Describe', 'A song about the sea and old friends', { style: 'sea shanty, choir' }],
	['Lyrics', '[Verse]\nWe sail at dawn\n[Chorus]\nHo ho', { title: 'Dawn', vocal: 'f', style: 'folk' }],
	['Instrumental', 'Warm lo-fi beat, soft piano, 80 bpm', { title: 'Study' }],
])('a song in %s mode: two takes with covers, titles and (unless instrumental) lyrics', async (mode, prompt, opts) => {
	const r = await generate({
		kind: 'music',
		model: 'cadence-song-v1',
		musicMode: mode,
		prompt,
		modelOptions: { mappingMode: 'defineBelow', value: opts },
	});
	expect(r.error).toBeUndefined();
	const [item] = r.items;
	const outputs = item.json.outputs as IDataObject[];
	expect(outputs).toHaveLength(2);
	for (const o of outputs) {
		expect(o.cover).toBeDefined();
		expect(o.title).toBeDefined();
		expect(o.seconds).toBeGreaterThan(0);
		if (mode === 'Instrumental') expect(o.lyrics).toBeUndefined();
		else expect(o.lyrics).toBeDefined();
	}
	expect(item.binary?.data.mimeType).toBe('audio/mpeg');
	expect(item.binary?.data_1.mimeType).toBe('audio/mpeg');
	expect(item.binary?.cover.mimeType).toBe('image/png');
	expect(item.binary?.cover_1).toBeDefined();
	const sent = backend.requests('POST /v1/generations').pop()?.body as IDataObject;
	expect(sent.options).toEqual({ resolution: 'song', tier: mode, ...opts });
	expect(item.json.cost).toBe(60);
});

describe('bad input is refused before any credit is spent, naming the field', () => {
	const cases: Array<[string, IDataObject, RegExp, (() => INodeExecutionData[])?]> = [
		[
			'prompt over the model limit',
			{ kind: 'image', model: 'pixelforge-sketch', prompt: 'x'.repeat(1001) },
			/Prompt is 1001 characters long; PixelForge Sketch takes at most 1000/,
		],
		[
			'music prompt over the mode limit',
			{ kind: 'music', model: 'cadence-song-v1', musicMode: 'Instrumental', prompt: 'x'.repeat(1001) },
			/in Instrumental mode takes at most 1000/,
		],
		[
			'an option the model does not accept',
			{ kind: 'image', model: 'nimbus-xl', prompt: 'p', modelOptions: { value: { format: 'PNG' } } },
			/File Format \(format\) is not accepted by Nimbus XL/,
		],
		[
			'a value the model does not allow',
			{ kind: 'image', model: 'studio-image-v1', prompt: 'p', modelOptions: { value: { resolution: '4K' } } },
			/Allowed values: "1K", "2K" \(default "1K"\)/,
		],
		[
			'a music field in the wrong mode',
			{
				kind: 'music',
				model: 'cadence-song-v1',
				musicMode: 'Describe',
				prompt: 'p',
				modelOptions: { value: { vocal: 'm' } },
			},
			/Voice \(vocal\) is not used in Describe mode/,
		],
		[
			'too many reference images',
			{
				kind: 'image',
				model: 'auralis-canvas-mini',
				prompt: 'p',
				referenceImageUrls: 'https://a.example/1.png, https://a.example/2.png',
			},
			/Reference Images: 2 given; Auralis Canvas Mini takes at most 1/,
		],
		[
			'audio on a model without audio input',
			{ kind: 'video', model: 'auralis-loop', prompt: 'p', additionalFields: { audioUrl: 'https://a.example/v.mp3' } },
			/Driving Audio: Auralis Loop does not take audio/,
		],
		[
			'a webhook URL that is not https',
			{
				kind: 'image',
				model: 'studio-image-v1',
				prompt: 'p',
				additionalFields: { webhookUrl: 'http://hooks.example.com/x' },
			},
			/Webhook URL: "http:\/\/hooks\.example\.com\/x" must start with https:\/\//,
		],
		[
			'a webhook URL over 500 chars',
			{
				kind: 'image',
				model: 'studio-image-v1',
				prompt: 'p',
				additionalFields: { webhookUrl: `https://hooks.example.com/${'a'.repeat(480)}` },
			},
			/Webhook URL is 506 characters long; the limit is 500/,
		],
		[
			'a request key over 120 chars',
			{ kind: 'image', model: 'studio-image-v1', prompt: 'p', additionalFields: { requestKey: 'k'.repeat(121) } },
			/Request Key is 121 characters long; the limit is 120/,
		],
		['a model of another kind', { kind: 'video', model: 'studio-image-v1', prompt: 'p' }, /makes images, not videos/],
		[
			'an unknown model',
			{ kind: 'image', model: 'no-such-model', prompt: 'p' },
			/"no-such-model" is not in the model catalogue/,
		],
		[
			'a wrong file type for a reference image',
			{ kind: 'image', model: 'lumora-image-2', prompt: 'p', referenceImageProperties: 'data' },
			/Reference Images: the file in "data" is text\/plain, which is not accepted here/,
			() => [
				{
					json: {},
					binary: {
						data: { data: Buffer.from('hello').toString('base64'), mimeType: 'text/plain', fileName: 'a.txt' } as never,
					},
				},
			],
		],
		[
			'an oversize reference image',
			{ kind: 'image', model: 'lumora-image-2', prompt: 'p', referenceImageProperties: 'data' },
			/is 10\.5 MB \(\d+ bytes\); image files may be at most 10 MB/,
			() => [
				{
					json: {},
					binary: {
						data: {
							data: Buffer.alloc(10 * 1024 * 1024 + 10).toString('base64'),
							mimeType: 'image/png',
							fileName: 'big.png',
						} as never,
					},
				},
			],
		],
		[
			'a missing binary property',
			{ kind: 'image', model: 'lumora-image-2', prompt: 'p', referenceImageProperties: 'photo' },
			/has no binary property "photo"/,
		],
	];
	test.each(cases.map((c) => [c[0], c[1], c[2], c[3] ?? null] as const))(
		'%s',
		async (_name, params, message, items) => {
			const posts = backend.requests('POST /v1/generations').length;
			const uploads = backend.requests('POST /v1/uploads').length;
			const spent = backend.charges();
			const r = await generate(params, items?.());
			expect(r.error?.message).toMatch(message);
			expect(backend.requests('POST /v1/generations').length).toBe(posts);
			expect(backend.requests('POST /v1/uploads').length).toBe(uploads);
			expect(backend.charges()).toBe(spent);
		},
	);
});

test('"Retry On Fail" after a forced 500 charges once', async () => {
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['500', '500'] }]);
	const spent = backend.charges();
	const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: 'retry me' }, undefined, {
		nodeOverrides: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
	});
	backend.sandbox.faults.set([]);
	expect(r.error).toBeUndefined();
	expect(r.items[0].json.status).toBe('SUCCEEDED');
	expect(backend.charges() - spent).toBe(5);
});

test('a lost answer after the run was made is retried with the same key and charged once', async () => {
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['drop_after'] }]);
	const spent = backend.charges();
	const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: 'lost answer' });
	backend.sandbox.faults.set([]);
	expect(r.error).toBeUndefined();
	expect(backend.charges() - spent).toBe(5);
	const keys = backend
		.requests('POST /v1/generations')
		.slice(-2)
		.map((e) => (e.body as IDataObject).requestKey);
	expect(keys[0]).toBe(keys[1]);
});

test('a failed run comes back as an error item with its refund under "Continue On Fail"', async () => {
	const spent = backend.charges();
	const r = await generate(
		{ kind: 'image', model: 'studio-image-v1', prompt: 'this will [fail]' },
		[{ json: {} }, { json: {} }],
		{ nodeOverrides: { onError: 'continueRegularOutput' } },
	);
	expect(r.items).toHaveLength(2);
	for (const [i, item] of r.items.entries()) {
		expect(item.json.error).toMatch(/failed/);
		expect(item.json.refunded).toBe(5);
		expect(item.json.runId).toMatch(/^gen_/);
		expect(item.json.status).toBe('FAILED');
		expect(item.pairedItem).toEqual({ item: i });
	}
	expect(backend.charges()).toBe(spent);
});

test('a timeout carries the run id', async () => {
	const r = await generate({
		kind: 'image',
		model: 'studio-image-v1',
		prompt: 'slow [stuck]',
		waiting: { pollIntervalSeconds: 1, timeoutMinutes: 0.04 },
	});
	expect(r.error?.message).toMatch(/Run gen_[0-9a-f]+ did not finish within 2 seconds/);
	expect(r.error?.context?.runId).toMatch(/^gen_/);
});

test('cancelling the execution stops the polling', async () => {
	// Its own account: the two stuck runs stay in progress and would hold two of the shared account's slots.
	const own = await startBackend();
	const pollsOf = (prompt: string) => {
		const run = [...own.sandbox.engine.runs.values()].find((r) => r.prompt === prompt);
		return run ? own.requests(`GET /v1/generations/${run.id}`).length : 0;
	};
	/** A stuck run's execution, polling every second, cancelled once its run has been polled `polls` times. */
	const cancelAfterPolls = async (prompt: string, polls: number) => {
		let cancel: () => void = () => undefined;
		const params = { kind: 'image', model: 'studio-image-v1', prompt, waiting: { pollIntervalSeconds: 1 } };
		const execution = generateRun(own.apiCredentials, params, undefined, { onStart: (e) => (cancel = e.cancel) });
		await until(() => pollsOf(prompt) >= polls, `${polls} poll(s) of "${prompt}"`);
		cancel();
		await execution;
	};
	try {
		await cancelAfterPolls('cancel me [stuck]', 1);
		const polls = pollsOf('cancel me [stuck]');
		// A witness run polled at the same interval: once it has polled three times, a poller left running would
		// have polled again too.
		await cancelAfterPolls('witness [stuck]', 3);
		expect(pollsOf('cancel me [stuck]')).toBe(polls);
	} finally {
		await own.sandbox.close();
	}
});

test('with waiting off the run record comes back at once', async () => {
	const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: 'no wait', waitForCompletion: false });
	// PENDING from the lenient sandbox; the strict one answers QUEUED first, as the spec allows.
	expect(r.items[0].json.status).toBe(backend.sandbox.config.strict ? 'QUEUED' : 'PENDING');
	expect(r.items[0].binary).toBeUndefined();
});

test('without "Continue On Fail" a failing run stops the batch from submitting more', async () => {
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: '={{ $json.prompt }}' }, [
		{ json: { prompt: 'zero [fail]' } },
		{ json: { prompt: 'one' } },
		{ json: { prompt: 'two' } },
		{ json: { prompt: 'three' } },
		{ json: { prompt: 'four' } },
		{ json: { prompt: 'five' } },
		{ json: { prompt: 'six' } },
	]);
	expect(r.error?.message).toMatch(/failed/);
	// Items 1 and 2 were under way beside item 0 (concurrency 3), and one more may have started as they
	// finished together; the rest never start.
	// (A run left stuck by an earlier test may make the sandbox answer 409 busy, so count keys, not POSTs.)
	const keys = new Set(
		backend
			.requests('POST /v1/generations')
			.slice(posts)
			.map((e) => (e.body as IDataObject).requestKey),
	);
	expect(keys.size).toBeGreaterThanOrEqual(3);
	expect(keys.size).toBeLessThan(7);
});
