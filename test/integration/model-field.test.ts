// Generate's Model field (issue 42, points 3 and 5), through n8n-core (WorkflowExecute, LoadOptionsContext and the
// tool n8n builds from the tool variant) against the sandbox: Model left empty runs the kind's cheapest free-tier model
// read from the catalogue, and About the Model names it; on the tool variant the list's first entry leaves the model
// to the AI agent and writes the kind's IDs with their prices into what the agent reads (the tool's input schema).
import type { IDataObject } from 'n8n-workflow';

import { getModelOptionFields, getModelSummary, searchModels } from '../../nodes/MediaGen/methods';
import { defaultModel, readCatalogue } from '../helpers/catalogue';
import { loadOptionsContext } from '../helpers/engine';
import { generate as generateRun } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { mcpCall, mcpTools, TOOL_TYPE } from '../helpers/toolHost';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

/** What the catalogue says the default of a kind is: its cheapest free-tier model, else its cheapest. */
const expectedDefault = async (kind: string) => defaultModel(await readCatalogue(backend.sandbox.baseUrl), kind);

const ctx = (params: IDataObject, type?: string) =>
	loadOptionsContext(
		{ authentication: 'apiKey', resource: 'generation', operation: 'generate', ...params },
		backend.apiCredentials,
		type,
	);

describe('Model left empty', () => {
	test.each(['image', 'video', 'music'])(
		'%s: the step runs the cheapest free-tier model of the kind, charged its price',
		async (kind) => {
			const expected = await expectedDefault(kind);
			const before = backend.charges();
			const r = await generateRun(backend.apiCredentials, { kind, model: '', prompt: 'a calm harbour at dawn' });
			expect(r.error).toBeUndefined();
			expect(r.items[0].json).toMatchObject({ status: 'SUCCEEDED', kind, model: expected.id });
			expect(backend.charges() - before).toBe(expected.credits_at_defaults);
		},
	);

	test('with Kind from an expression, each item gets the default of its own kind', async () => {
		const r = await generateRun(backend.apiCredentials, { kind: '={{ $json.kind }}', model: '', prompt: 'a kite' }, [
			{ json: { kind: 'image' } },
			{ json: { kind: 'video' } },
		]);
		expect(r.error).toBeUndefined();
		expect(r.items.map((i) => i.json.model)).toEqual([
			(await expectedDefault('image')).id,
			(await expectedDefault('video')).id,
		]);
	});

	test('About the Model names the model the step will use; the Options box shows its options', async () => {
		const studio = await expectedDefault('image');
		const c = ctx({ kind: 'image', model: { __rl: true, mode: 'list', value: '' } });
		const about = String((await getModelSummary.call(c)).emptyFieldsNotice);
		expect(about).toMatch(
			new RegExp(
				`^<b>No model chosen</b>: the step uses ${studio.name}, the cheapest free-tier image model in the catalogue\\. ` +
					'Pick another above\\.<br><b>',
			),
		);
		const { fields } = await getModelOptionFields.call(c);
		expect(fields.map((f) => f.id)).toEqual(['resolution', 'aspect', 'format']);
	});
});

test('a model of another kind still chosen heads the list under a name that says so', async () => {
	const { results } = await searchModels.call(
		ctx({ kind: 'music', model: { __rl: true, mode: 'list', value: 'studio-image-v1' } }),
	);
	expect(results[0]).toMatchObject({
		name: 'Studio Image makes images, not songs: pick a music model below',
		value: 'studio-image-v1',
	});
	expect(results.slice(1).map((r) => r.value)).toEqual(['cadence-song-v1']);
});

describe('on the tool variant: the AI agent chooses the model', () => {
	async function agentEntry(kind: string) {
		const { results } = await searchModels.call(ctx({ kind }, TOOL_TYPE));
		return results[0];
	}

	test('the first entry of the list leaves Model to the agent; the regular node has no such entry', async () => {
		const images = (await readCatalogue(backend.sandbox.baseUrl)).filter((m) => m.kind === 'image');
		const entry = await agentEntry('image');
		expect(entry.name).toBe(`Let the AI Agent Choose: told the ${images.length} image model IDs and prices`);
		expect(String(entry.value)).toMatch(/^=\{\{ \/\*n8n-auto-generated-fromAI-override\*\/ \$fromAI\('Model', `/);
		const { results } = await searchModels.call(ctx({ kind: 'image' }));
		expect(results.map((r) => r.value)).toEqual(expect.arrayContaining(images.map((m) => m.id)));
		expect(results).toHaveLength(images.length);
		// Searching for a model shows models only.
		const searched = await searchModels.call(ctx({ kind: 'image' }, TOOL_TYPE), 'studio');
		expect(searched.results.map((r) => r.value)).toEqual(['studio-image-v1']);
	});

	test("the tool's input schema tells the agent every model ID of the kind with its price", async () => {
		const entry = await agentEntry('video');
		const [tool] = await mcpTools({
			parameters: {
				resource: 'generation',
				operation: 'generate',
				kind: 'video',
				model: { __rl: true, mode: 'list', value: entry.value },
				prompt: "={{ $fromAI('prompt', 'What the video shows', 'string') }}",
			},
			credentials: backend.apiCredentials,
		});
		const shape = (tool.schema as { shape: Record<string, { description?: string }> }).shape;
		expect(Object.keys(shape).sort()).toEqual(['Model', 'prompt']);
		const described = String(shape.Model.description);
		const videos = (await readCatalogue(backend.sandbox.baseUrl)).filter((m) => m.kind === 'video');
		expect(described).toMatch(/^The video model: one of these IDs, with its price at default options: /);
		for (const m of videos) expect(described).toContain(`${m.id} (${m.credits_at_defaults} credits)`);
		// Cheapest first.
		const cheapest = videos.reduce((a, b) => (b.credits_at_defaults < a.credits_at_defaults ? b : a));
		expect(described).toContain(`options: ${cheapest.id} (`);
	});

	test('the agent picks one of the IDs and that model runs; an empty answer runs the default', async () => {
		const entry = await agentEntry('image');
		const setup = {
			parameters: {
				resource: 'generation',
				operation: 'generate',
				kind: 'image',
				model: { __rl: true, mode: 'list', value: entry.value },
				prompt: "={{ $fromAI('prompt', 'What the image shows', 'string') }}",
				waiting: { pollIntervalSeconds: 1 },
			},
			credentials: backend.apiCredentials,
		};
		const picked = JSON.parse(
			await mcpCall(setup, { Model: 'lumora-image-2-fast', prompt: 'a kite' }),
		) as IDataObject[];
		expect(picked[0]).toMatchObject({ status: 'SUCCEEDED', model: 'lumora-image-2-fast' });
		const empty = JSON.parse(await mcpCall(setup, { Model: '', prompt: 'a kite' })) as IDataObject[];
		expect(empty[0]).toMatchObject({ status: 'SUCCEEDED', model: (await expectedDefault('image')).id });
	});

	test('About the Model on the tool variant, with Model from an expression, points to the entry', async () => {
		// The editor sends null for an expression it cannot resolve yet, as $fromAI before a run.
		const c = ctx({ kind: 'image', model: { __rl: true, mode: 'list', value: null } }, TOOL_TYPE);
		expect((await getModelSummary.call(c)).emptyFieldsNotice).toBe(
			'Model comes from an expression, or is "Defined automatically by the model": the AI agent then knows the ' +
				'image model IDs only from its Description. "Let the AI Agent Choose", first in the model list (click × ' +
				'on the field to see the list), writes them there with their prices from the catalogue. A model ID the ' +
				'catalogue lacks is refused without charge.',
		);
		const regular = ctx({ kind: 'image', model: { __rl: true, mode: 'list', value: null } });
		expect((await getModelSummary.call(regular)).emptyFieldsNotice).toBe(
			'The model comes from an expression, so its options are known only when the step runs.',
		);
	});
});
