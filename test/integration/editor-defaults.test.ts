/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the editor stores is what runs: an option added to the Options box and left untouched sends
// nothing, so the model's own default applies, for every kind of option (text list, number list, yes/no,
// music voice and free text). The stored values are built as n8n 2.40.7's editor builds them (below),
// from the fields our resource mapper method returns, and run through WorkflowExecute.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject, ResourceMapperField } from 'n8n-workflow';

import { getModelOptionFields, getModelSummary, searchApps, searchModels } from '../../nodes/MediaGen/methods';
import { NO_OPTIONS_NOTICE } from '../../nodes/MediaGen/methods/resourceMapping';
import { loadOptionsContext, runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

/**
 * The value n8n's ResourceMapper gives a field it shows or adds (editor-ui 2.40.7, ResourceMapper.vue):
 * `defaultValue` when the field has one, else `false` for a yes/no field and `null` otherwise; nulls are
 * then dropped from the stored value. A yes/no field without a default would be stored as `false`.
 */
function editorInitialValue(field: ResourceMapperField): unknown {
	if (field.defaultValue !== undefined) return field.defaultValue;
	return field.type === 'boolean' ? false : null;
}

async function fieldsFor(kind: string, model: string, musicMode?: string): Promise<ResourceMapperField[]> {
	const params: IDataObject = {
		authentication: 'apiKey',
		resource: 'generation',
		operation: 'generate',
		kind,
		model: { __rl: true, mode: 'list', value: model },
	};
	if (musicMode) params.musicMode = musicMode;
	return (await getModelOptionFields.call(loadOptionsContext(params, backend.apiCredentials))).fields;
}

/** Every option of the model added and left untouched, stored as the editor stores it. */
async function untouched(kind: string, model: string, musicMode?: string): Promise<IDataObject> {
	const value: IDataObject = {};
	for (const field of await fieldsFor(kind, model, musicMode)) {
		const v = editorInitialValue(field);
		if (v !== null) value[field.id] = v as IDataObject[string];
	}
	return value;
}

async function generate(kind: string, model: string, value: IDataObject, musicMode?: string) {
	return await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind,
			model: { __rl: true, mode: 'list', value: model },
			prompt: 'a quiet harbour at dawn',
			...(musicMode ? { musicMode } : {}),
			modelOptions: { mappingMode: 'defineBelow', value },
			waiting: { pollIntervalSeconds: 1 },
		},
		credentials: backend.apiCredentials,
	});
}

describe('an option added in the editor and left untouched sends the model default', () => {
	test.each([
		// yes/no (default on), number list, text lists
		['video', 'lumora-motion-3', undefined, 300, ['resolution', 'aspect', 'duration', 'audio']],
		// a tier list and a yes/no option
		['video', 'helix-world', undefined, 315, ['resolution', 'aspect', 'tier', 'duration', 'audio']],
		// yes/no with default off
		['video', 'nimbus-story', undefined, 210, ['resolution', 'aspect', 'duration', 'audio']],
		['image', 'pixelforge-ultra', undefined, 50, ['resolution', 'aspect', 'tier', 'format']],
		// music: voice list and free text (style, title)
		['music', 'cadence-song-v1', 'Lyrics', 60, ['style', 'title', 'vocal']],
	])('%s %s', async (kind, model, musicMode, price, ids) => {
		const fields = await fieldsFor(kind, model, musicMode);
		expect(fields.map((f) => f.id)).toEqual(expect.arrayContaining(ids));
		// No yes/no switch: n8n's switch has no "not set" state and would start off whatever the default.
		expect(fields.filter((f) => f.type === 'boolean')).toEqual([]);
		const value = await untouched(kind, model, musicMode);
		expect(Object.keys(value).sort()).toEqual([...fields.map((f) => f.id)].sort());
		const r = await generate(kind, model, value, musicMode);
		expect(r.error).toBeUndefined();
		const sent = backend.requests('POST /v1/generations').pop()?.body as { options: IDataObject };
		const defaults = await modelDefaults(model);
		// Only the required resolution (at its default) and, for music, the mode are sent.
		expect(sent.options).toEqual({ resolution: defaults.resolution, ...(musicMode ? { tier: musicMode } : {}) });
		expect(r.items[0].json.cost).toBe(price);
		for (const [k, v] of Object.entries(defaults))
			if (k !== 'tier' || !musicMode) expect((r.items[0].json.options as IDataObject)[k]).toEqual(v);
	});

	test('the first entry of every list reads "Model Default (…)" with the model\'s default, and sends nothing', async () => {
		const fields = await fieldsFor('video', 'lumora-motion-3');
		const audio = fields.find((f) => f.id === 'audio')!;
		expect(audio.displayName).toBe('Sound (default: On)');
		expect(audio.options?.map((o) => [o.name, o.value])).toEqual([
			['Model Default (On)', ''],
			['On (default)', true],
			['Off', false],
		]);
		const voice = (await fieldsFor('music', 'cadence-song-v1', 'Lyrics')).find((f) => f.id === 'vocal')!;
		expect(voice.options?.[0]).toMatchObject({ name: 'Any Voice (Model Chooses)', value: '' });
	});

	test('a value picked in the box is sent as picked', async () => {
		const r = await generate('video', 'lumora-motion-3', { resolution: '', aspect: '', duration: 5, audio: false });
		expect(r.error).toBeUndefined();
		const sent = backend.requests('POST /v1/generations').pop()?.body as { options: IDataObject };
		expect(sent.options).toEqual({ resolution: '1080p', duration: 5, audio: false });
	});
});

async function modelDefaults(model: string): Promise<IDataObject> {
	const res = await fetch(`${backend.sandbox.baseUrl}/models`);
	const { models } = (await res.json()) as { models: Array<{ id: string; defaults: IDataObject }> };
	return models.find((m) => m.id === model)!.defaults;
}

describe('what the editor shows around the Options box', () => {
	const ctx = (params: IDataObject, credentials = backend.apiCredentials as never) =>
		loadOptionsContext(
			{ authentication: 'apiKey', resource: 'generation', operation: 'generate', ...params },
			credentials,
		);

	test('a model typed By ID that is not in the catalogue is named, not "pick a model"', async () => {
		const c = ctx({ kind: 'video', model: { __rl: true, mode: 'id', value: 'no-such-model' } });
		const { emptyFieldsNotice } = await getModelSummary.call(c);
		expect(emptyFieldsNotice).toMatch(/^"no-such-model" is not a model in the catalogue\. .*lumora-motion-3/);
		expect((await getModelOptionFields.call(c)).emptyFieldsNotice).toBe(NO_OPTIONS_NOTICE);
	});

	test('a model of another kind is called out once, by its name, in plural nouns', async () => {
		const c = ctx({ kind: 'video', model: { __rl: true, mode: 'list', value: 'studio-image-v1' } });
		expect((await getModelSummary.call(c)).emptyFieldsNotice).toBe(
			'Studio Image makes images, not videos: change Kind to Image, or pick a video model.',
		);
		// The Options box below points up instead of repeating it.
		expect((await getModelOptionFields.call(c)).emptyFieldsNotice).toBe(NO_OPTIONS_NOTICE);
		const music = ctx({ kind: 'image', model: { __rl: true, mode: 'list', value: 'cadence-song-v1' } });
		expect((await getModelSummary.call(music)).emptyFieldsNotice).toBe(
			'Cadence Song makes songs, not images: change Kind to Music, or pick an image model.',
		);
	});

	test('a broken credential gives the reason in the box instead of failing the request', async () => {
		const broken = { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: 'sk_12' } };
		const c = ctx({ kind: 'video', model: { __rl: true, mode: 'list', value: 'lumora-motion-3' } }, broken as never);
		const { fields, emptyFieldsNotice } = await getModelSummary.call(c);
		expect(fields).toEqual([]);
		expect(emptyFieldsNotice).toMatch(/^Could not read the catalogue: The API key does not have the expected shape/);
		// The editor keeps this note until the box reloads, which a credential change does not do.
		expect(emptyFieldsNotice).toMatch(/once the credential is fixed, close and reopen the node to read it again\.$/);
		expect(await getModelOptionFields.call(c)).toEqual({ fields: [], emptyFieldsNotice: NO_OPTIONS_NOTICE });
	});

	test('About the Model says what a talking-avatar model needs', async () => {
		const { fields, emptyFieldsNotice } = await getModelSummary.call(
			ctx({ kind: 'video', model: { __rl: true, mode: 'list', value: 'orchid-avatar' } }),
		);
		expect(fields).toEqual([]);
		expect(emptyFieldsNotice).toContain(
			'<b>Needs driving audio</b>: add Additional Fields → Driving Audio File or Driving Audio URL.',
		);
		expect(emptyFieldsNotice).toContain(
			'Prompt up to 1,000 characters · up to 1 reference image · no end frame · no negative prompt (leave that field empty).',
		);
		const { results } = await searchModels.call(ctx({ kind: 'video' }));
		expect(results.find((r) => r.value === 'orchid-avatar')?.name).toBe(
			'Video · Orchid Avatar (Orchid) · 185 credits, needs driving audio',
		);
	});
});

describe('Kind from an expression (one step for mixed kinds)', () => {
	const ctx = (params: IDataObject) =>
		loadOptionsContext(
			{ authentication: 'apiKey', resource: 'generation', operation: 'generate', ...params },
			backend.apiCredentials,
		);

	test('the model list offers every kind, each name saying its kind', async () => {
		for (const kind of ['={{ $json.kind }}', '']) {
			const { results } = await searchModels.call(ctx({ kind }));
			const names = results.map((r) => String(r.name));
			expect(names.some((n) => n.startsWith('Image · '))).toBe(true);
			expect(names.some((n) => n.startsWith('Video · '))).toBe(true);
			expect(names.some((n) => n.startsWith('Music · '))).toBe(true);
		}
		// A fixed kind's list names the kind too: n8n saves the name with the choice, and the notice under Model reads
		// the kind from it after a Kind change.
		const { results } = await searchModels.call(ctx({ kind: 'video' }));
		expect(results.every((r) => String(r.name).startsWith('Video · '))).toBe(true);
	});

	test('the Options box shows the chosen model whatever its kind, and says what an empty Model does', async () => {
		const kind = '={{ $json.kind }}';
		const video = await getModelOptionFields.call(
			ctx({ kind, model: { __rl: true, mode: 'list', value: 'lumora-motion-3' } }),
		);
		expect(video.fields.length).toBeGreaterThan(0);
		const none = await getModelSummary.call(ctx({ kind, model: { __rl: true, mode: 'list', value: '' } }));
		expect(none.emptyFieldsNotice).toBe('No model chosen: each item uses the cheapest free-tier model of its kind.');
	});
});

test('the example workflows show the model and app names the lists show, not raw ids', async () => {
	const dir = path.join(__dirname, '../../examples');
	let checked = 0;
	for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
		const wf = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
			nodes: Array<{ type: string; parameters: IDataObject }>;
		};
		for (const node of wf.nodes.filter(
			(n) => n.type === 'n8n-nodes-mediagen.mediaGen' && (n.parameters.model || n.parameters.app),
		)) {
			const p = node.parameters;
			const [name, locator, method] =
				p.resource === 'app' ? ['app', p.app, searchApps] : ['model', p.model, searchModels];
			const rl = locator as { mode: string; value: string; cachedResultName?: string };
			const { results } = await method.call(
				loadOptionsContext({ authentication: 'apiKey', ...p }, backend.apiCredentials),
			);
			expect([file, name, rl.cachedResultName]).toEqual([file, name, results.find((r) => r.value === rl.value)?.name]);
			checked++;
		}
	}
	expect(checked).toBe(5);
});
