/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `negative_prompt` and `end_frame` are not fields of the spec's model record: the sandbox adds them. Against a
// catalogue without them the node says nothing about end frames or negative prompts (unknown is not "no"), and
// sends what the user gives: the service's own answer decides.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { getModelSummary } from '../../nodes/MediaGen/methods';
import { loadOptionsContext } from '../helpers/engine';
import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
let dir: string;

beforeAll(async () => {
	const catalogue = JSON.parse(readFileSync(path.join(__dirname, '../../sandbox/data/models.json'), 'utf8')) as {
		models: IDataObject[];
	};
	for (const model of catalogue.models) {
		delete model.negative_prompt;
		delete model.end_frame;
	}
	dir = mkdtempSync(path.join(tmpdir(), 'mediagen-models-'));
	const modelsFile = path.join(dir, 'models.json');
	writeFileSync(modelsFile, JSON.stringify(catalogue));
	backend = await startBackend({ modelsFile });
});

afterAll(async () => {
	await backend.sandbox.close();
	rmSync(dir, { recursive: true, force: true });
});

async function about(kind: string, model: string): Promise<string> {
	const ctx = loadOptionsContext(
		{
			authentication: 'apiKey',
			resource: 'generation',
			operation: 'generate',
			kind,
			model: { __rl: true, mode: 'list', value: model },
		},
		backend.apiCredentials,
	);
	return String((await getModelSummary.call(ctx)).emptyFieldsNotice);
}

test('About the Model says nothing about end frames or negative prompts the catalogue does not describe', async () => {
	for (const [kind, model] of [
		['video', 'studio-video-v1'],
		['video', 'lumora-motion-3'],
		['image', 'lumora-image-2'],
	]) {
		const text = await about(kind, model);
		expect(text).toMatch(/Prompt up to [\d,]+ characters/);
		expect(text).not.toMatch(/end frame|negative prompt/i);
	}
});

test('an end frame and a negative prompt are sent as given when the catalogue does not say whether they are used', async () => {
	const spent = backend.charges();
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(backend.apiCredentials, {
		kind: 'video',
		model: 'studio-video-v1',
		prompt: 'a paper boat on a pond',
		additionalFields: {
			negativePrompt: 'blur',
			endFrameUrl: 'https://example.com/end.png',
		},
	});
	const sent = backend.requests('POST /v1/generations').slice(posts);
	expect(sent).toHaveLength(1);
	expect(sent[0].body).toMatchObject({ negativePrompt: 'blur', endImageUrl: 'https://example.com/end.png' });
	// This sandbox takes both (a service that does not would answer 400 invalid, uncharged).
	expect(r.error).toBeUndefined();
	expect(r.items[0].json.status).toBe('SUCCEEDED');
	expect(backend.charges() - spent).toBe(Number(r.items[0].json.cost));
});

test('when the service refuses what the catalogue did not describe, its 400 answer is what the user reads, uncharged', async () => {
	const spent = backend.charges();
	const r = await generate(backend.apiCredentials, {
		kind: 'video',
		model: 'lumora-motion-3',
		prompt: 'a paper boat on a pond',
		additionalFields: { endFrameUrl: 'http://127.0.0.1:9/end.png' },
	});
	expect(r.error?.message).toMatch(/^The service refused the request because some parameters are not valid: /);
	expect(r.error?.description).toContain('Nothing was charged.');
	expect(backend.charges() - spent).toBe(0);
});
