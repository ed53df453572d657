// nodes/MediaGen/run/runOutput.ts: a batch's output items, run or failed, given the same columns.
import type { INodeExecutionData } from 'n8n-workflow';

import { withSameColumns } from '../../../../../nodes/MediaGen/run/runOutput';

const item = (json: Record<string, unknown>): INodeExecutionData => ({ json: json as INodeExecutionData['json'] });

describe('withSameColumns', () => {
	test("a failed item gets a run's fields as null, and runs get the failed item's fields as null", () => {
		const items = withSameColumns([
			item({ id: 'gen_1', cost: 5, status: 'SUCCEEDED', outputs: [] }),
			item({ id: null, prompt: 'x', error: 'Prompt is 2126 characters long', description: 'Nothing was sent' }),
		]);
		expect(items[0].json).toEqual({
			id: 'gen_1',
			cost: 5,
			status: 'SUCCEEDED',
			outputs: [],
			prompt: null,
			error: null,
			description: null,
		});
		expect(items[1].json).toEqual({
			id: null,
			prompt: 'x',
			error: 'Prompt is 2126 characters long',
			description: 'Nothing was sent',
			cost: null,
			status: null,
			outputs: null,
		});
	});

	test('keeps values that are there, false and 0 included, and leaves a single item alone', () => {
		const items = withSameColumns([item({ a: 0, b: false }), item({ c: '' })]);
		expect(items.map((i) => i.json)).toEqual([
			{ a: 0, b: false, c: null },
			{ c: '', a: null, b: null },
		]);
		const one = item({ a: 1 });
		expect(withSameColumns([one])[0].json).toEqual({ a: 1 });
	});
});
