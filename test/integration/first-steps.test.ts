// What a first-time user meets after the happy path (issue 29, points 5–7), through n8n-core's WorkflowExecute
// against the sandbox: Kind as an expression, batch errors that keep their item, file names a person can tell
// apart, and checks that speak plainly. Every refusal is checked for its message and for no credit spent.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { generate as generateRun } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

function generate(params: IDataObject, items?: INodeExecutionData[], continueOnFail = false) {
	const extra = continueOnFail ? { nodeOverrides: { onError: 'continueRegularOutput' as const } } : {};
	return generateRun(backend.apiCredentials, params, items, extra);
}

/** Runs a refused request and checks that nothing was sent or charged. */
async function refused(params: IDataObject, items?: INodeExecutionData[]) {
	const spent = backend.charges();
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(params, items);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges()).toBe(spent);
	return r.error!;
}

describe('5. Kind from an expression', () => {
	test('each item uses only the fields of its kind: a music item ignores Negative Prompt', async () => {
		const before = backend.charges();
		const jobs = [
			{ kind: 'video', model: 'kestrel-move', prompt: 'a wave at dusk' },
			{ kind: 'music', model: 'cadence-song-v1', prompt: 'a calm song about the sea' },
		];
		const r = await generate(
			{
				kind: '={{ $json.kind }}',
				model: '={{ $json.model }}',
				prompt: '={{ $json.prompt }}',
				additionalFields: { negativePrompt: 'blurry' },
			},
			jobs.map((json) => ({ json })),
		);
		expect(r.error).toBeUndefined();
		expect(r.items.map((i) => [i.json.kind, i.json.status])).toEqual([
			['video', 'SUCCEEDED'],
			['music', 'SUCCEEDED'],
		]);
		const sent = backend
			.requests('POST /v1/generations')
			.slice(-2)
			.map((s) => s.body as IDataObject);
		const music = sent.find((b) => b.kind === 'music')!;
		const video = sent.find((b) => b.kind === 'video')!;
		expect(music.negativePrompt).toBeUndefined();
		expect(video.negativePrompt).toBe('blurry');
		expect(backend.charges() - before).toBe(r.items.reduce((sum, i) => sum + Number(i.json.cost), 0));
	});

	test('the panel explains a Kind expression with a notice shown only while Kind is not a fixed kind', async () => {
		const { MediaGen } = await import('../../nodes/MediaGen/MediaGen.node');
		const notice = new MediaGen().description.properties.find((p) => p.name === 'kindExpressionNotice')!;
		expect(notice.type).toBe('notice');
		expect(notice.displayName).toMatch(/^Kind comes from an expression/);
		expect(notice.displayOptions?.hide?.kind).toEqual(['image', 'video', 'music']);
	});
});

describe('6. batch errors keep their item', () => {
	test('with Continue: a failed item carries its kind, model and prompt; the good ones their files', async () => {
		const spent = backend.charges();
		const jobs = [{ prompt: 'a red kite over dunes' }, { prompt: 'x'.repeat(2001) }, { prompt: 'a blue boat in fog' }];
		const r = await generate(
			{ kind: 'image', model: 'studio-image-v1', prompt: '={{ $json.prompt }}' },
			jobs.map((json) => ({ json })),
			true,
		);
		expect(r.error).toBeUndefined();
		const [ok, bad, ok2] = r.items;
		expect(bad.json).toMatchObject({ kind: 'image', model: 'studio-image-v1', prompt: 'x'.repeat(2001) });
		expect(String(bad.json.error)).toBe('Prompt is 2001 characters long; Studio Image takes at most 2000.');
		expect(bad.json.id).toBeNull(); // never submitted: no run (null, so n8n's table shows no red undefined)
		expect(bad.pairedItem).toEqual({ item: 1 });
		expect(ok.json.status).toBe('SUCCEEDED');
		expect(backend.charges() - spent).toBe(Number(ok.json.cost) + Number(ok2.json.cost));
	});

	test('files are named by their prompt and the end of their run ID; the full ID stays in the JSON', async () => {
		const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: 'A lighthouse at Dawn, in oil!' });
		const item = r.items[0];
		const id = String(item.json.id);
		expect(item.binary?.data.fileName).toBe(`a-lighthouse-at-dawn-in-oil-${id.replace(/^gen_/, '').slice(-6)}.png`);
	});

	test('two runs of one prompt get two file names', async () => {
		const r = await generate({ kind: 'image', model: 'studio-image-v1', prompt: 'same words' }, [
			{ json: {} },
			{ json: {} },
		]);
		const names = r.items.map((i) => i.binary?.data.fileName);
		expect(new Set(names).size).toBe(2);
		for (const name of names) expect(name).toMatch(/^same-words-[0-9a-z]{6}\.png$/);
	});
});

describe('7. checks that speak plainly, before any credit is spent', () => {
	const base = { kind: 'image', model: 'studio-image-v1', prompt: 'a cat' };

	test('a Webhook URL on a private address is refused as such, without the model limits', async () => {
		const error = await refused({ ...base, additionalFields: { webhookUrl: 'https://192.168.1.20/webhook/x' } });
		expect(error.message).toMatch(/^Webhook URL: 192\.168\.1\.20 is a private or local address/);
		expect(error.description).toMatch(/Nothing was (sent|submitted) and nothing was charged/);
		expect(error.description).not.toMatch(/accepts:/);
	});

	test('Max Credits of -5 is refused naming the value, as a sentence', async () => {
		const error = await refused({ ...base, additionalFields: { maxCredits: -5 } });
		expect(error.message).toBe(
			'Max Credits per Execution is -5; enter a number of credits, 0 or more, or remove the field for no cap.',
		);
	});

	test('a problem with the model still ends with what the model accepts', async () => {
		const error = await refused({ ...base, prompt: 'x'.repeat(2001) });
		expect(error.description).toMatch(
			/nothing was charged.*Studio Image \(studio-image-v1\) accepts: prompt up to 2000/,
		);
	});
});
