// nodes/MediaGen/run/runErrors.ts: the note naming runs already paid for when a step stops.
import { paidRunsNote, paidRunsOf, withPaidRuns } from '../../../../../nodes/MediaGen/run/runErrors';
import { runRecord } from '../../../../helpers/runRecord';

describe('runs already paid for when a step stops', () => {
	test('each run is named with its item, cost and status, with how to get its files without paying again', () => {
		const note = paidRunsNote([
			{ id: 'gen_a', itemIndex: 0, cost: 5, status: 'SUCCEEDED' },
			{ id: 'gen_b', itemIndex: 3, cost: 1, status: 'RUNNING' },
			{ id: 'gen_c', itemIndex: 4 },
		]);
		expect(note).toContain(
			'Runs of this step already paid for: gen_a (item 1, 5 credits, SUCCEEDED); gen_b (item 4, 1 credit, RUNNING); ' +
				'gen_c (item 5).',
		);
		expect(note).toMatch(/Generation → Get \(Run ID\), which charges nothing/);
		expect(note).toMatch(/"Continue On Fail"/);
	});

	test('no paid runs, no note; the note goes under an existing description', () => {
		expect(paidRunsNote([])).toBe('');
		const bare = withPaidRuns(new Error('x') as Error & { description?: string }, []);
		expect(bare.description).toBeUndefined();
		const error = Object.assign(new Error('Run gen_x failed'), { description: '5 credits were refunded.' });
		withPaidRuns(error, [{ id: 'gen_a', itemIndex: 1 }]);
		expect(error.description).toMatch(
			/^5 credits were refunded\.\n\nRuns of this step already paid for: gen_a \(item 2\)/,
		);
	});
});

describe('every item that may have been charged is named (issue 41)', () => {
	test('a run known or named in its error, and a submission whose answer was lost; a refunded run is not', () => {
		const lost = { context: { requestKey: 'k-2', mayBeCharged: true } };
		const mismatch = { context: { runId: 'gen_m', status: 'SUCCEEDED', cost: 25, requestKey: 'k-3' } };
		const charges = [
			{ itemIndex: 1, requestKey: 'k-1', error: lost },
			{ itemIndex: 2, requestKey: 'k-2', error: mismatch },
			{ itemIndex: 3, requestKey: 'k-4', error: { context: { requestKey: 'k-4' } } },
			{ itemIndex: 4, requestKey: 'k-5', run: runRecord({ status: 'FAILED' }) },
		];
		expect(paidRunsOf(charges)).toEqual([
			{ itemIndex: 1, requestKey: 'k-2' },
			{ id: 'gen_m', itemIndex: 2, cost: 25, status: 'SUCCEEDED', requestKey: 'k-3' },
		]);
	});

	test('the key the item was last sent with, when its error names none; a stale status is not shown', () => {
		const running = runRecord({ id: 'gen_r', status: 'RUNNING', cost: 5 });
		expect(
			paidRunsOf([
				{ itemIndex: 0, requestKey: 'k-1-r2', error: { context: { mayBeCharged: true } } },
				{ itemIndex: 1, requestKey: 'k-2', run: running, stale: true },
				{ itemIndex: 2, requestKey: 'k-3', unconfirmed: true },
				{ itemIndex: 3, requestKey: 'k-4' },
			]),
		).toEqual([
			{ itemIndex: 0, requestKey: 'k-1-r2' },
			{ id: 'gen_r', itemIndex: 1, cost: 5, requestKey: 'k-2' },
			{ itemIndex: 2, requestKey: 'k-3', unconfirmed: true },
		]);
	});

	test('the note and the context name them, with the advice that sends every key again', () => {
		const error = Object.assign(new Error('stopped'), { context: {} as Record<string, unknown> });
		const batch = {
			inputCount: 2,
			items: [
				{ itemIndex: 0, key: 'k-1' },
				{ itemIndex: 1, key: 'k-2' },
			],
		};
		withPaidRuns(error, [{ itemIndex: 1, requestKey: 'k-2' }], [], batch);
		expect((error as { description?: string }).description).toContain(
			'Submissions whose answer was lost, so they may have been charged: item 2, request key k-2. To get their ' +
				'runs without paying again, run this step again with Additional Fields → Request Key set to the ' +
				'expression "k-{{ $itemIndex + 1 }}"',
		);
		expect(error.context.paidRuns).toEqual([
			{ item: 2, runId: null, requestKey: 'k-2', status: 'UNCONFIRMED', cost: null },
		]);
	});
});

describe('items a restarted pause-mode process cannot tell were sent', () => {
	test('are named apart from lost answers, as may have been charged, with the advice; UNCONFIRMED in the context', () => {
		const error = Object.assign(new Error('stopped'), { context: {} as Record<string, unknown> });
		withPaidRuns(error, [
			{ itemIndex: 0, requestKey: 'k-1' },
			{ itemIndex: 2, requestKey: 'k-3', unconfirmed: true },
		]);
		const description = (error as { description?: string }).description ?? '';
		expect(description).toContain(
			'Submissions whose answer was lost, so they may have been charged: item 1, request key k-1.',
		);
		expect(description).toContain(
			'Items this n8n process cannot tell were submitted or not (it did not send them: n8n restarted, or another ' +
				'process handled the batch), so they may have been charged: item 3, request key k-3. To get their runs, ' +
				'if they were made, without paying again, run this step again with',
		);
		expect(description).not.toMatch(/lost, so they may have been charged: [^.]*k-3/);
		expect(error.context.paidRuns).toEqual([
			{ item: 1, runId: null, requestKey: 'k-1', status: 'UNCONFIRMED', cost: null },
			{ item: 3, runId: null, requestKey: 'k-3', status: 'UNCONFIRMED', cost: null },
		]);
	});
});
