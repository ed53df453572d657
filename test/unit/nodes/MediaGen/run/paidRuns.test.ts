// nodes/MediaGen/run/runErrors.ts: the note naming runs already paid for when a step stops, from the ledger.
import { learn, learnRun, ledgerItem, refuse, type LedgerItem } from '../../../../../nodes/MediaGen/run/ledger';
import { paidRunsNote, paidRunsOf, withPaidRuns } from '../../../../../nodes/MediaGen/run/runErrors';
import { runRecord } from '../../../../helpers/runRecord';

type SendOutcome = Parameters<typeof learn>[1];

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
		expect(note).toMatch(/Settings → On Error to Continue \(n8n 1\.x: turn on "Continue On Fail"\)/);
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

describe('every item that may have been charged is named (issues 41, 52)', () => {
	const lost = { noAnswer: new Error('no usable answer') };
	const refused = { refused: new Error('400 invalid') };
	/** Item `itemIndex` (key k-<itemIndex + 1>) after sends that ended with `outcomes`. */
	const sent = (itemIndex: number, ...outcomes: SendOutcome[]): LedgerItem => {
		const item = ledgerItem(itemIndex, `k-${itemIndex + 1}`);
		for (const outcome of outcomes) learn(item, outcome);
		return item;
	};

	test('a run known, a send whose answer was lost (refused or busy after it); refunded or refused ones are not', () => {
		// The run of another request its key brought back is not this step's: refused, named in the error as takenBy.
		const taken = ledgerItem(2, 'k-3');
		const context = { requestKey: 'k-3', takenBy: 'gen_m' };
		refuse(taken, Object.assign(new Error('Request key "k-3" already belongs to run gen_m'), { context }));
		const items = [
			sent(0, lost),
			sent(1, { run: runRecord({ id: 'gen_r', status: 'RUNNING', cost: 25 }) }),
			taken,
			sent(3, refused),
			sent(4, { run: runRecord({ status: 'FAILED' }) }),
			sent(5, lost, refused),
			sent(6, lost, { busy: new Error('409') }),
			sent(7, { busy: new Error('409') }, { passing: new Error('503') }),
			sent(8, { ...refused, lostBefore: true }),
		];
		expect(paidRunsOf(items)).toEqual([
			{ itemIndex: 0, requestKey: 'k-1' },
			{ id: 'gen_r', itemIndex: 1, cost: 25, status: 'RUNNING', requestKey: 'k-2' },
			{ itemIndex: 5, requestKey: 'k-6' },
			{ itemIndex: 6, requestKey: 'k-7' },
			{ itemIndex: 8, requestKey: 'k-9' },
		]);
	});

	test('the key last sent (-r2 after a refund); a stale status is not shown; an unknown item is unconfirmed', () => {
		const moved = Object.assign(ledgerItem(0, 'k-1-r2'), { firstKey: 'k-1', attempt: 2 });
		learn(moved, lost);
		const stale = ledgerItem(1, 'k-2');
		learnRun(stale, runRecord({ id: 'gen_r', status: 'RUNNING', cost: 5 }));
		stale.stale = true;
		expect(
			paidRunsOf([moved, stale, ledgerItem(2, 'k-3', 'unknown'), ledgerItem(3, 'k-4'), sent(4, { run: runRecord() })]),
		).toEqual([
			{ itemIndex: 0, requestKey: 'k-1-r2' },
			{ id: 'gen_r', itemIndex: 1, cost: 5, requestKey: 'k-2' },
			{ itemIndex: 2, requestKey: 'k-3', unconfirmed: true },
			{ id: 'gen_1', itemIndex: 4, cost: 5, status: 'PENDING', requestKey: 'k-5' },
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
	test('are named apart from lost answers, as maybe charged, with the advice; UNCONFIRMED in the context', () => {
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
