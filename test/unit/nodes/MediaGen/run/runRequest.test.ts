// nodes/MediaGen/run/runRequest.ts: a text field as n8n hands it (what the expression returned: undefined, null,
// text; the raw parameter with rawExpressions), with a context in memory.
import type { IExecuteFunctions } from 'n8n-workflow';

import { readRequestText } from '../../../../../nodes/MediaGen/run/runRequest';

/** One item `json` whose Prompt is `raw` as saved and `value` as n8n resolved it for that item. */
function context(raw: string, value: unknown, json: Record<string, unknown> = {}): IExecuteFunctions {
	return {
		getNode: () => ({ name: 'Media Generation' }),
		getInputData: () => [{ json }],
		getNodeParameter: (_: string, __: number, ___: unknown, options?: { rawExpressions?: boolean }) =>
			options?.rawExpressions ? raw : value,
	} as unknown as IExecuteFunctions;
}
const read = (ctx: IExecuteFunctions) => readRequestText(ctx, 'prompt', 'Prompt', 0);

test('fixed text is sent as typed, the words "undefined" and "null" too', () => {
	expect(read(context('undefined', 'undefined'))).toBe('undefined');
	expect(read(context('null', 'null'))).toBe('null');
	expect(read(context('', ''))).toBe('');
});

test('an expression that gives text is that text, empty text too (checkRequest refuses it as an empty Prompt)', () => {
	expect(read(context('={{ $json.prompt }}', 'a harbour', { prompt: 'a harbour' }))).toBe('a harbour');
	expect(read(context('=A {{ $json.subject }}', 'A ', {}))).toBe('A ');
	expect(read(context('={{ "" }}', ''))).toBe('');
	expect(read(context('={{ $json.prompt }}', '', { prompt: '' }))).toBe('');
});

test('an expression that gives nothing: refused, naming the field and what the item holds', () => {
	expect(() => read(context('={{ $json.prompt }}', undefined, { other: 1 }))).toThrow(
		'Prompt: the expression {{ $json.prompt }} gave nothing: the item has no "prompt" field.',
	);
	expect(() => read(context('={{ $json["my prompt"] }}', null, { 'my prompt': null }))).toThrow(
		'Prompt: the expression {{ $json["my prompt"] }} gave nothing: the item\'s "my prompt" field is null.',
	);
	expect(() => read(context('={{ $json.a.b }}', undefined, {}))).toThrow(
		/gave nothing: it gave no value \(undefined\)\.$/,
	);
});

test("the advice: give every item the field, or, for Estimate Cost's summary item, how to leave it out", () => {
	const advice = (json: Record<string, unknown>) => {
		try {
			read(context('={{ $json.prompt }}', json.prompt, json));
		} catch (error) {
			return (error as { description: string }).description;
		}
		return 'not refused';
	};
	expect(advice({})).toBe(
		'Give every item a "prompt" field, or leave out the items without ' +
			'one (for example with a Filter node) before this step.',
	);
	expect(advice({ estimate: 'Total: 10 credits', summary: true, totalCredits: 10, prompt: null })).toMatch(
		new RegExp(
			"^This item is Estimate Cost's summary \\(summary: true\\), " +
				"not a request: set Estimate Cost's Put the Summary to On Every Item",
		),
	);
});

test('a long expression is quoted shortened, and a $fromAI one without the marker n8n puts in it', () => {
	const long = `={{ ${'$json.a + '.repeat(20)}$json.b }}`;
	expect(() => read(context(long, undefined, {}))).toThrow(/the expression \{\{ (\$json\.a \+ )+\$json.{0,3}… gave/);
	const fromAI = "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('prompt', 'What to make', 'string') }}";
	expect(() => read(context(fromAI, undefined, {}))).toThrow(
		"Prompt: the expression {{ $fromAI('prompt', 'What to make', 'string') }} gave nothing",
	);
});
