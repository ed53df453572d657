// The trigger's panel as n8n's editor builds it from the description: labelled credential boxes (n8n shows an
// entry's displayName, else only "Credential"), and at most two short notices before the first field.
import { NodeHelpers, validateNodeCredentials } from 'n8n-workflow';

import { MediaGenTrigger } from '../../../../nodes/MediaGenTrigger/MediaGenTrigger.node';

const { credentials, properties } = new MediaGenTrigger().description;
const words = (text: string) =>
	text
		.replace(/<[^>]+>/g, '')
		.split(/\s+/)
		.filter(Boolean).length;

test('each credential box says what goes in it; the API Key box shows only with Check Unverified Deliveries', () => {
	// n8n fills one box of a new node by itself, among those shown: hidden, the API Key box leaves it the Signing Secret.
	expect(credentials?.map((c) => [c.name, c.displayName, c.required, c.displayOptions])).toEqual([
		['mediaGenWebhookApi', 'Signing Secret', true, undefined],
		['mediaGenApi', 'API Key', undefined, { show: { readBack: [true] } }],
	]);
	// Off for new nodes; on (hidden) for version 1 nodes, which read back whenever the box holds a key.
	const readBack = properties.filter((p) => p.name === 'readBack');
	expect(readBack.map((p) => [p.type, p.default, p.displayOptions?.show?.['@version']])).toEqual([
		['boolean', false, [{ _cnd: { gte: 1.1 } }]],
		['hidden', true, [1]],
	]);
});

test('at most two short notices come before the first field: where the URL goes, which secret goes where', () => {
	const first = properties.findIndex((p) => p.type !== 'notice');
	const before = properties.slice(0, first);
	expect(before.length).toBeLessThanOrEqual(2);
	for (const notice of before) expect(words(notice.displayName)).toBeLessThanOrEqual(45);
	const text = before.map((p) => p.displayName).join(' ');
	expect(text).toContain('Production URL');
	expect(text).toContain('Signing Secret box:');
	expect(text).toContain('Turn on Check Unverified Deliveries');
});

test('no description talks of an internal field name', () => {
	const said = properties.flatMap((p) => [
		p.description,
		...(p.options ?? []).map((o) => 'description' in o && o.description),
	]);
	expect(said.join(' ')).not.toContain('testEvent');
});

// n8n 2.x refuses to publish a workflow whose node misses a credential it marks required (workflow-validation.service).
test.each([
	['a version 1 node with only its Signing Secret (optional API key, as saved before 1.1)', 1, {}, []],
	['a version 1.1 node with Check Unverified Deliveries off', 1.1, { readBack: false }, []],
])('what n8n finds missing before publishing %s', (_, typeVersion, parameters, missing) => {
	const type = new MediaGenTrigger();
	const node = {
		id: 'trigger',
		name: 'Media Generation Trigger',
		type: 'mediaGenTrigger',
		typeVersion,
		position: [0, 0] as [number, number],
		parameters,
		credentials: { mediaGenWebhookApi: { id: 'secret', name: 'Signing secret' } },
	};
	// As n8n reads a saved node: its parameters with their defaults (the hidden readBack of version 1 included).
	node.parameters = NodeHelpers.getNodeParameters(properties, parameters, true, false, node, type.description) ?? {};
	const issues = validateNodeCredentials(node, type);
	expect(issues.map((i) => i.displayName)).toEqual(missing);
});
