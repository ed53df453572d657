// The trigger's panel as n8n's editor builds it from the description: labelled credential boxes (n8n shows an
// entry's displayName, else only "Credential"), and at most two short notices before the first field.
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
		['mediaGenApi', 'API Key', true, { show: { readBack: [true] } }],
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
