// The trigger's panel as n8n's editor builds it from the description: labelled credential boxes (n8n shows an
// entry's displayName, else only "Credential"), and at most two short notices before the first field.
import { MediaGenTrigger } from '../../../../nodes/MediaGenTrigger/MediaGenTrigger.node';

const { credentials, properties } = new MediaGenTrigger().description;
const words = (text: string) =>
	text
		.replace(/<[^>]+>/g, '')
		.split(/\s+/)
		.filter(Boolean).length;

test('each credential box says what goes in it, and the API key box that it is optional', () => {
	expect(credentials?.map((c) => [c.name, c.displayName, c.required])).toEqual([
		['mediaGenWebhookApi', 'Signing Secret', true],
		['mediaGenApi', 'API Key (Optional)', false],
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
	expect(text).toContain('API Key (Optional) box:');
});

test('no description talks of an internal field name', () => {
	const said = properties.flatMap((p) => [
		p.description,
		...(p.options ?? []).map((o) => 'description' in o && o.description),
	]);
	expect(said.join(' ')).not.toContain('testEvent');
});
