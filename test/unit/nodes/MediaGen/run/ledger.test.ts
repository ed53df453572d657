// nodes/MediaGen/run/ledger.ts: each item's state, moved on by what each try to send it ended with, and its credits.
import {
	creditsOf,
	isSettled,
	learn,
	learnRun,
	ledgerItem,
	mayBeCharged,
	refuse,
	type LedgerItem,
} from '../../../../../nodes/MediaGen/run/ledger';
import { runRecord as run } from '../../../../helpers/runRecord';

type SendOutcome = Parameters<typeof learn>[1];
type ItemState = LedgerItem['state'];

const lostAnswer = new Error('no usable answer');
const slotsBusy = new Error('409 busy');
const passingFault = new Error('503 paused');
const refusal = new Error('400 invalid');

const noAnswer: SendOutcome = { noAnswer: lostAnswer };
const busy: SendOutcome = { busy: slotsBusy };
const passing: SendOutcome = { passing: passingFault };
const refused: SendOutcome = { refused: refusal };

/** An item in `state`, moved on by `outcomes` in turn. */
function after(state: ItemState, ...outcomes: SendOutcome[]): LedgerItem {
	const item = ledgerItem(2, 'k-3', state);
	for (const outcome of outcomes) learn(item, outcome);
	return item;
}

/** What the output and the cap read of an item. */
const seen = (item: LedgerItem) => ({ state: item.state, mayBeCharged: mayBeCharged(item), settled: isSettled(item) });

test('an item starts unsent (or unknown, when another process may have sent it), its first key its key', () => {
	expect(ledgerItem(2, 'k-3')).toEqual({ itemIndex: 2, key: 'k-3', firstKey: 'k-3', state: 'unsent' });
	expect(ledgerItem(2, 'k-3', 'unknown').state).toBe('unknown');
	expect(seen(ledgerItem(0, 'k'))).toEqual({ state: 'unsent', mayBeCharged: false, settled: false });
	// Another process may have sent it, and been charged.
	expect(seen(ledgerItem(0, 'k', 'unknown'))).toEqual({ state: 'unknown', mayBeCharged: true, settled: false });
});

describe('learn: one try', () => {
	test('a run: running until it is final, then finished; what was said of the item before is cleared', () => {
		for (const from of ['unsent', 'unknown', 'answerLost'] as const) {
			const item = Object.assign(ledgerItem(0, 'k', from), { failure: slotsBusy, stale: true, outOfCredits: true });
			learn(item, { run: run({ status: 'PENDING' }) });
			expect(item).toMatchObject({ state: 'running', run: { id: 'gen_1', status: 'PENDING' } });
			expect(item.failure ?? item.stale ?? item.outOfCredits).toBeUndefined();
			expect(seen(item)).toEqual({ state: 'running', mayBeCharged: false, settled: false });
		}
		for (const status of ['SUCCEEDED', 'FAILED', 'CANCELED']) {
			const item = after('unsent', { run: run({ status }) });
			expect(seen(item)).toEqual({ state: 'finished', mayBeCharged: false, settled: true });
			expect(item.run?.status).toBe(status);
		}
	});

	test('no answer: the answer is lost, the run may have been made and charged', () => {
		for (const from of ['unsent', 'unknown'] as const) {
			const item = after(from, noAnswer);
			expect(seen(item)).toEqual({ state: 'answerLost', mayBeCharged: true, settled: false });
			expect(item.failure).toBe(lostAnswer);
		}
	});

	test('busy or passing, with no lost answer before: the state stays as it was, the failure is kept', () => {
		for (const from of ['unsent', 'unknown'] as const)
			for (const [outcome, failure] of [
				[busy, slotsBusy],
				[passing, passingFault],
			] as const) {
				const item = after(from, outcome);
				expect(item.state).toBe(from);
				expect(item.failure).toBe(failure);
			}
	});

	test('a refusal with no lost answer before: refused, nothing charged; a 402 is marked out of credits', () => {
		for (const from of ['unsent', 'unknown'] as const) {
			const item = after(from, refused);
			expect(seen(item)).toEqual({ state: 'refused', mayBeCharged: false, settled: true });
			expect(item.failure).toBe(refusal);
			expect(item.outOfCredits).toBeUndefined();
		}
		expect(after('unsent', { refused: refusal, outOfCredits: true }).outOfCredits).toBe(true);
		expect(after('unsent', { refused: refusal, outOfCredits: false }).outOfCredits).toBeUndefined();
	});

	test('a refusal after a lost answer: refused, but the lost try may have made the run and been charged', () => {
		const item = after('unsent', noAnswer, { refused: refusal, outOfCredits: true });
		expect(seen(item)).toEqual({ state: 'refusedAfterLost', mayBeCharged: true, settled: true });
		expect(item).toMatchObject({ failure: refusal, outOfCredits: true });
	});

	test('lostBefore: an answer lost within the one try (the transport sent it again) counts as a lost answer', () => {
		expect(seen(after('unsent', { ...busy, lostBefore: true }))).toMatchObject({ state: 'answerLost' });
		expect(seen(after('unsent', { ...passing, lostBefore: true }))).toMatchObject({ state: 'answerLost' });
		expect(seen(after('unknown', { ...busy, lostBefore: true }))).toMatchObject({ state: 'answerLost' });
		expect(seen(after('unsent', { ...refused, lostBefore: true }))).toEqual({
			state: 'refusedAfterLost',
			mayBeCharged: true,
			settled: true,
		});
		expect(after('unsent', { ...refused, lostBefore: false }).state).toBe('refused');
		// A run named by the answer says what the lost try made: it is the item's run.
		expect(after('unsent', { run: run(), lostBefore: true }).state).toBe('running');
	});
});

describe('learn: the sequences of issue 52', () => {
	test('a lost answer, then busy or passing answers: still answerLost (may have been charged)', () => {
		for (const later of [[busy], [passing], [busy, passing, busy]]) {
			const item = after('unsent', noAnswer, ...later);
			expect(seen(item)).toEqual({ state: 'answerLost', mayBeCharged: true, settled: false });
			// The last problem is the one shown.
			expect(item.failure).toBe(later[later.length - 1] === busy ? slotsBusy : passingFault);
		}
		expect(after('unsent', busy, noAnswer, busy).state).toBe('answerLost');
		expect(after('unknown', noAnswer, busy).state).toBe('answerLost');
	});

	test('a lost answer, then a refusal: refusedAfterLost, however many busy answers came between', () => {
		expect(seen(after('unsent', noAnswer, refused))).toEqual({
			state: 'refusedAfterLost',
			mayBeCharged: true,
			settled: true,
		});
		expect(after('unsent', noAnswer, busy, passing, refused).state).toBe('refusedAfterLost');
		expect(after('unknown', noAnswer, refused).state).toBe('refusedAfterLost');
	});

	test('busy and passing answers with no lost one leave unsent and unknown as they were', () => {
		expect(seen(after('unsent', busy, passing, busy))).toEqual({
			state: 'unsent',
			mayBeCharged: false,
			settled: false,
		});
		expect(seen(after('unknown', passing, busy))).toEqual({ state: 'unknown', mayBeCharged: true, settled: false });
		expect(after('unsent', busy, passing, refused).state).toBe('refused');
	});

	test('a run after a lost answer: running, then finished; no longer maybe charged', () => {
		const item = after('unsent', noAnswer, busy, { run: run({ status: 'PROCESSING' }) });
		expect(seen(item)).toEqual({ state: 'running', mayBeCharged: false, settled: false });
		expect(item.failure).toBeUndefined();
		learn(item, { run: run({ status: 'SUCCEEDED' }) });
		expect(seen(item)).toEqual({ state: 'finished', mayBeCharged: false, settled: true });
		expect(after('unsent', noAnswer, { run: run({ status: 'FAILED' }) }).state).toBe('finished');
	});
});

describe('learnRun', () => {
	test('never replaces a final record of the same run with an older one', () => {
		const item = ledgerItem(0, 'k');
		learnRun(item, run({ status: 'SUCCEEDED', outputs: [{ url: 'u', mime: 'image/png' }] }));
		learnRun(item, run({ status: 'PROCESSING' }));
		learnRun(item, run({ status: 'PENDING' }));
		expect(item.state).toBe('finished');
		expect(item.run).toMatchObject({ status: 'SUCCEEDED', outputs: [{ url: 'u' }] });
	});

	test('a newer record replaces an older one; the run of the next key replaces a final one', () => {
		const item = ledgerItem(0, 'k');
		learnRun(item, run({ status: 'PENDING' }));
		learnRun(item, run({ status: 'PROCESSING' }));
		expect(item).toMatchObject({ state: 'running', run: { status: 'PROCESSING' } });
		learnRun(item, run({ status: 'FAILED' }));
		expect(item).toMatchObject({ state: 'finished', run: { status: 'FAILED' } });
		learnRun(item, run({ id: 'gen_2', status: 'PENDING' }));
		expect(item).toMatchObject({ state: 'running', run: { id: 'gen_2', status: 'PENDING' } });
	});

	test('a record read or delivered is no longer stale', () => {
		const item = Object.assign(ledgerItem(0, 'k'), { stale: true });
		learnRun(item, run({ status: 'PENDING' }));
		expect(item.stale).toBeUndefined();
	});
});

describe('refuse (a check or the cap, before a send of its own)', () => {
	test('an item never sent, or sent and answered busy or passing only: refused, nothing charged', () => {
		const item = ledgerItem(0, 'k');
		refuse(item, refusal);
		expect(seen(item)).toEqual({ state: 'refused', mayBeCharged: false, settled: true });
		expect(item.failure).toBe(refusal);
		const waited = after('unsent', busy, passing);
		refuse(waited, refusal);
		expect(seen(waited)).toEqual({ state: 'refused', mayBeCharged: false, settled: true });
	});

	test('an item whose answer was lost: refusedAfterLost, its run may have been made and charged', () => {
		const item = after('unsent', noAnswer);
		refuse(item, refusal);
		expect(seen(item)).toEqual({ state: 'refusedAfterLost', mayBeCharged: true, settled: true });
		expect(item.failure).toBe(refusal);
		const again = after('unsent', noAnswer, refused);
		refuse(again, 'the cap');
		expect(again).toMatchObject({ state: 'refusedAfterLost', failure: 'the cap' });
	});

	test('an item another process may have sent (unknown): refused, as the check decides alike in every process', () => {
		const item = ledgerItem(0, 'k', 'unknown');
		refuse(item, refusal);
		expect(item.state).toBe('refused');
	});
});

describe('creditsOf', () => {
	test('a run: its cost, whatever the predicted price; a run without a cost counts at the price', () => {
		expect(creditsOf(after('unsent', { run: run({ cost: 5 }) }), 7)).toBe(5);
		expect(creditsOf(after('unsent', noAnswer, { run: run({ cost: 5, status: 'SUCCEEDED' }) }), 7)).toBe(5);
		expect(creditsOf(after('unsent', { run: run({ cost: undefined as never }) }), 7)).toBe(7);
	});

	test('nothing for a run an earlier execution made and paid for, or one that failed (refunded)', () => {
		const earlier = Object.assign(after('unsent', { run: run({ cost: 5, status: 'SUCCEEDED' }) }), { earlier: true });
		expect(creditsOf(earlier, 5)).toBe(0);
		expect(creditsOf(after('unsent', { run: run({ cost: 5, status: 'FAILED' }) }), 5)).toBe(0);
	});

	test('the predicted price while it may have been charged (0 when there is none)', () => {
		expect(creditsOf(after('unsent', noAnswer), 7)).toBe(7);
		expect(creditsOf(after('unsent', noAnswer, busy), 7)).toBe(7);
		expect(creditsOf(after('unsent', noAnswer, refused), 7)).toBe(7);
		expect(creditsOf(after('unsent', noAnswer), undefined)).toBe(0);
	});

	test('undefined while not known to be sent (unsent, unknown), and for a refusal with no lost answer', () => {
		expect(creditsOf(ledgerItem(0, 'k'), 7)).toBeUndefined();
		expect(creditsOf(ledgerItem(0, 'k', 'unknown'), 7)).toBeUndefined();
		expect(creditsOf(after('unsent', busy, passing), 7)).toBeUndefined();
		expect(creditsOf(after('unsent', refused), 7)).toBeUndefined();
	});
});
