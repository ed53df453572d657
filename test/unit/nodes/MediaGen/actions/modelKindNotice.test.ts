// The notice under Model after a Kind change that n8n's editor did not follow up (an expression it cannot resolve
// yet): shown by n8n-workflow's own displayParameter, as the editor shows it, from the kind the model list put first
// in the name n8n saved with the choice.
import { NodeHelpers, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { MediaGen } from '../../../../../nodes/MediaGen/MediaGen.node';

const { description } = new MediaGen();
const notices = description.properties.filter((p) => /^(image|video|music)ModelNotice$/.test(p.name));

/** The notices shown for these parameters (a Generate step whose model was picked from the list). */
function shown(kind: string, cachedResultName: string, prompt = '={{ $json.prompts }}'): string[] {
	const values: INodeParameters = {
		resource: 'generation',
		operation: 'generate',
		kind,
		model: { __rl: true, mode: 'list', value: 'studio-image-v1', cachedResultName },
		prompt,
	};
	const node = { typeVersion: 1 } as never;
	return notices
		.filter((p: INodeProperties) => NodeHelpers.displayParameter(values, p, node, description))
		.map((p) => p.displayName);
}

const IMAGE_MODEL = 'Image · Studio Image (Studio) · 5 credits, free tier';

test('one notice per kind, right under Model (Generate and Estimate Cost)', () => {
	expect([...new Set(notices.map((p) => p.name))]).toEqual([
		'imageModelNotice',
		'videoModelNotice',
		'musicModelNotice',
	]);
	const names = description.properties.map((p) => p.name);
	const at = names.flatMap((name, i) => (name === 'imageModelNotice' ? [i] : []));
	expect(at.length).toBeGreaterThan(0);
	for (const i of at) expect(names[i - 1]).toBe('model');
});

test('an image model under Kind Music: the notice says so, names what to do and that nothing is sent', () => {
	const said = shown('music', IMAGE_MODEL);
	expect(said).toEqual([
		'The model chosen above makes images, not what Kind now asks for. Pick a model from the list (it shows the ' +
			'models of the new kind), or set Kind back to Image. Nothing is sent as it is.',
	]);
	expect(shown('video', IMAGE_MODEL)).toHaveLength(1);
});

test('no notice when the kinds agree, when Kind is an expression, or for a name saved before the kind was in it', () => {
	expect(shown('image', IMAGE_MODEL)).toEqual([]);
	expect(shown('={{ $json.kind }}', IMAGE_MODEL)).toEqual([]);
	expect(shown('music', 'Studio Image (Studio) · 5 credits, free tier')).toEqual([]);
	expect(shown('music', 'Music · Cadence Song (Cadence) · 60 credits')).toEqual([]);
});

test('no displayOptions condition that n8n 1.x runs on a missing value (startsWith, endsWith, includes)', () => {
	// n8n 1.123's checkConditions calls value.startsWith(…) without a type check: on a node whose value is missing the
	// whole execution fails ("Cannot read properties of undefined"). `regex` checks the type on both versions.
	const unsafe: string[] = [];
	const visit = (value: unknown, path: string): void => {
		if (!value || typeof value !== 'object') return;
		for (const [key, inner] of Object.entries(value)) {
			if (key === '_cnd' && inner && typeof inner === 'object')
				for (const op of Object.keys(inner)) if (['startsWith', 'endsWith', 'includes'].includes(op)) unsafe.push(path);
			visit(inner, `${path}.${key}`);
		}
	};
	for (const p of description.properties) visit(p.displayOptions, p.name);
	for (const c of description.credentials ?? []) visit(c.displayOptions, c.name);
	expect(unsafe).toEqual([]);
});
