// nodes/MediaGen/run/runOutput.ts: a batch's output items, run or failed, given the same columns.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { learn, ledgerItem, type LedgerItem } from '../../../../../nodes/MediaGen/run/ledger';
import {
	withErrorOutput,
	isErrorOutputItem,
	outcomeHints,
	stepOutput,
	withSameColumns,
} from '../../../../../nodes/MediaGen/run/runOutput';

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

describe('outcomeHints', () => {
	test('nothing to notice: no hint', () => {
		expect(
			outcomeHints([item({ id: 'gen_1', status: 'SUCCEEDED' }), item({ error: 'x', errorCode: 'invalid' })]),
		).toEqual([]);
	});

	test('runs past the time limit, items never sent in time and cap refusals: one hint each, naming the items', () => {
		const hints = outcomeHints([
			item({ error: 'late', errorCode: 'time_limit', runId: 'gen_a' }),
			item({ error: 'late', errorCode: 'time_limit', runId: 'gen_b' }),
			item({ error: 'cap', errorCode: 'spending_cap' }),
			item({ error: 'not sent', errorCode: 'time_limit' }),
			item({ id: 'gen_c', status: 'SUCCEEDED' }),
		]);
		expect(hints.map((h) => h.message)).toEqual([
			'Time limit: the runs of items 1 and 2 (gen_a, gen_b) did not finish in time. They keep going on the service ' +
				'and are charged (a run that fails is refunded); pick them up with Generation → Wait.',
			'Time limit: item 4 could not be sent in time, so nothing was charged for it.',
			'Max Credits per Execution refused item 3: not submitted, so nothing was charged for it. Raise the cap or ' +
				'split the batch.',
		]);
		expect(hints.every((h) => h.type === 'warning' && h.location === 'outputPane')).toBe(true);
	});
});

describe('withErrorOutput', () => {
	const ctx = (onError?: string) => ({ getNode: () => ({ onError }) }) as unknown as IExecuteFunctions;
	const items = () => [
		{ json: { id: 'gen_1', status: 'SUCCEEDED', error: null }, binary: {}, pairedItem: { item: 0 } },
		{
			json: { id: null, error: 'Run gen_2 failed: x', description: '5 credits were refunded.' },
			pairedItem: { item: 1 },
		},
	];

	test('under "Continue (using error output)": failed items keep only error and message, the shape n8n routes', () => {
		const out = withErrorOutput(ctx('continueErrorOutput'), withSameColumns(items()));
		expect(out[0]).toEqual(withSameColumns(items())[0]);
		expect(out[1]).toEqual({
			json: { error: 'Run gen_2 failed: x', message: '5 credits were refunded.' },
			pairedItem: { item: 1 },
		});
		expect(out.map((i) => isErrorOutputItem(i.json))).toEqual([false, true]);
	});

	test('under any other On Error setting the items stay as they are', () => {
		for (const onError of [undefined, 'continueRegularOutput', 'stopWorkflow'])
			expect(withErrorOutput(ctx(onError), items())).toEqual(items());
	});
});

type SendOutcome = Parameters<typeof learn>[1];

describe('stepOutput', () => {
	const ctx = { getNode: () => ({}) } as unknown as IExecuteFunctions;
	const batch = { inputCount: 5, items: [0, 1, 2, 3].map((i) => ({ itemIndex: i, key: `k-${i}` })) };
	/** Item `i`'s ledger entry after sends that ended with `outcomes`. */
	const ledger = (i: number, ...outcomes: SendOutcome[]): LedgerItem => {
		const entry = ledgerItem(i, `k-${i}`);
		for (const outcome of outcomes) learn(entry, outcome);
		return entry;
	};
	const results = (): LedgerItem[] => [
		// Never started: its ledger entry is unsent, and it has no output.
		ledger(3),
		// Not sent within its time limit (it waited for a slot): unsent.
		{
			...ledger(2, { busy: new Error('409') }),
			error: new Error('late'),
			output: item({ error: 'late', errorCode: 'time_limit' }),
		},
		{
			...ledger(1, { noAnswer: new Error('lost') }),
			error: new Error('lost'),
			output: item({ error: 'lost' }),
		},
		{
			...ledger(0, { run: { id: 'gen_0', status: 'SUCCEEDED', cost: 5 } as never }),
			output: item({}),
		},
		// Refused by its checks before it had a ledger entry.
		{
			...ledgerItem(4, '', 'refused'),
			error: new Error('invalid'),
			output: item({ error: 'invalid', errorCode: 'invalid' }),
		},
	];

	test('without Continue On Fail: the first failure, naming the paid runs and the items never started', () => {
		let thrown: Error & { description?: string } = new Error();
		try {
			stepOutput(ctx, results(), { continueOnFail: false, batch });
		} catch (error) {
			thrown = error as typeof thrown;
		}
		expect(thrown.message).toBe('lost');
		expect(thrown.description).toContain('Runs of this step already paid for: gen_0 (item 1, 5 credits, SUCCEEDED');
		expect(thrown.description).not.toContain('item 2, request key k-1');
		expect(thrown.description).not.toContain('k-2');
		expect(thrown.description).toContain('Item 4 was not started, so nothing was charged for it.');
	});

	test("another failed item's lost answer is named as maybe charged, with its key", () => {
		const lost = results()[2];
		const invalid = {
			...ledgerItem(0, '', 'refused'),
			error: new Error('invalid'),
			output: item({ error: 'invalid' }),
		};
		let thrown: Error & { description?: string } = new Error();
		try {
			stepOutput(ctx, [lost, invalid], { continueOnFail: false, batch });
		} catch (error) {
			thrown = error as typeof thrown;
		}
		expect(thrown.message).toBe('invalid');
		expect(thrown.description).toContain(
			'Submissions whose answer was lost, so they may have been charged: item 2, request key k-1.',
		);
	});

	test('with it: every item in input order with the same columns, and the hints', () => {
		const hints: string[] = [];
		const addHints = (h: Array<{ message: string }>) => hints.push(...h.map((x) => x.message));
		const out = stepOutput(ctx, results(), { continueOnFail: true, batch, addHints });
		expect(out.map((i) => i.json.error)).toEqual([null, 'lost', 'late', 'invalid']);
		expect(hints).toEqual(['Time limit: item 3 could not be sent in time, so nothing was charged for it.']);
	});
});
