// nodes/MediaGen/pause/batchWalk.ts: the ledger the resume calls of this process keep of a batch, built from the pause
// record, where each item of it stands, and what it paid for.
import type { RunRecord } from '../../../../../nodes/shared/records';
import { BatchMemory, batchMemoryOf, reportOf } from '../../../../../nodes/MediaGen/pause/batchWalk';
import { learn } from '../../../../../nodes/MediaGen/run/ledger';
import { paidRunsOf } from '../../../../../nodes/MediaGen/run/runErrors';
import { pauseStateOf } from '../../../../helpers/pauseState';

const run = (id: string, status: string, cost = 5) => ({ id, status, cost }) as RunRecord;
const lost = { noAnswer: new Error('no usable answer') };

/** A batch of `items` with keys key-0 …; `record` fills in the pause record before the memory is made from it. */
function batch(items: number, pausing = true, record: (state: ReturnType<typeof pauseStateOf>) => void = () => {}) {
	const state = pauseStateOf(items, 2);
	state.items.forEach((entry, i) => (entry.body.requestKey = `key-${i}`));
	record(state);
	return { state, memory: new BatchMemory(state, pausing) };
}

test('every kind of item, and what each was or may have been charged for', () => {
	const { memory } = batch(7, true, (state) => {
		// Sent before the pause, recorded as PENDING and not read since: its status may be stale.
		Object.assign(state.items[3], { runId: 'gen_3', createdAt: 10, cost: 5 });
		state.items[6].refused = { message: 'over the cap' };
	});
	memory.learn(0, run('gen_0', 'SUCCEEDED'), true);
	memory.learn(1, run('gen_1', 'FAILED'), true);
	memory.learn(2, run('gen_2', 'PROCESSING'), true);
	learn(memory.items[4], lost);
	learn(memory.items[5], lost);
	learn(memory.items[5], { refused: new Error('refused after a lost answer') });
	const { items, complete } = reportOf(memory);
	expect(items.map((item) => item.state)).toEqual([
		'finished',
		'finished',
		'running',
		'running',
		'answerLost',
		'refusedAfterLost',
		'refused',
	]);
	expect(items[3].stale).toBe(true);
	expect(complete).toBe(false);
	expect(paidRunsOf(items)).toEqual([
		{ id: 'gen_0', itemIndex: 0, cost: 5, status: 'SUCCEEDED', requestKey: 'key-0' },
		{ id: 'gen_2', itemIndex: 2, cost: 5, status: 'PROCESSING', requestKey: 'key-2' },
		{ id: 'gen_3', itemIndex: 3, cost: 5, requestKey: 'key-3' },
		{ itemIndex: 4, requestKey: 'key-4' },
		{ itemIndex: 5, requestKey: 'key-5' },
	]);
	// Once every run is final and every other item refused, the batch is complete.
	memory.learn(2, run('gen_2', 'SUCCEEDED'), false);
	memory.learn(3, run('gen_3', 'SUCCEEDED'), false);
	learn(memory.items[4], { refused: new Error('400') });
	expect(reportOf(memory).complete).toBe(true);
});

test('items this process does not know: never sent when it paused the batch (it saw every send), else unknown', () => {
	const other = batch(1, false);
	expect(other.memory.complete).toBe(false);
	expect(reportOf(other.memory).items[0].state).toBe('unknown');
	expect(paidRunsOf(reportOf(other.memory).items)).toEqual([{ itemIndex: 0, requestKey: 'key-0', unconfirmed: true }]);
	const pausing = batch(1, true);
	expect(pausing.memory.complete).toBe(true);
	expect(reportOf(pausing.memory).items[0].state).toBe('unsent');
	expect(paidRunsOf(reportOf(pausing.memory).items)).toEqual([]);
});

test('an item another call is sending counts as sent with its answer lost: it may yet be made and charged', () => {
	const { memory } = batch(2);
	memory.sending.add(0);
	const { items, complete, inFlight } = reportOf(memory);
	expect(items.map((item) => item.state)).toEqual(['answerLost', 'unsent']);
	expect([complete, inFlight]).toEqual([false, 1]);
	expect(paidRunsOf(items)).toEqual([{ itemIndex: 0, requestKey: 'key-0' }]);
	// The report is a copy: the ledger itself still says unsent.
	expect(memory.items[0].state).toBe('unsent');
	// Once its run is known, the run is what the report shows.
	memory.learn(0, run('gen_0', 'PENDING'), true);
	expect(reportOf(memory).items[0]).toMatchObject({ state: 'running', run: { id: 'gen_0' } });
});

describe("the resume calls' ledger of a batch", () => {
	const run = (id: string, status: string) => ({ id, status }) as RunRecord;

	test('counts runs in flight, including items being sent, and never lets an older state replace a final one', () => {
		const memory = new BatchMemory(pauseStateOf(3, 1), true);
		memory.learn(0, run('a', 'PROCESSING'), true);
		memory.learn(1, run('b', 'SUCCEEDED'), true);
		memory.sending.add(2);
		expect(memory.inFlight()).toBe(2);
		memory.learn(1, run('b', 'PENDING'), false);
		expect(memory.isFinal(1)).toBe(true);
		expect(memory.items[1].run?.status).toBe('SUCCEEDED');
		expect(memory.watched.has(1)).toBe(true);
		memory.learn(0, run('a', 'SUCCEEDED'), false);
		expect(memory.inFlight()).toBe(1);
		expect(memory.positionOf('b')).toBe(1);
		expect(memory.positionOf('c')).toBeUndefined();
	});

	test('one memory per batch, found again by its key', () => {
		const state = { ...pauseStateOf(2, 1), batchId: `batch-${Math.random()}` };
		batchMemoryOf(state, 'e1', 'Node').failedChecks = 3;
		expect(batchMemoryOf(state, 'e2', 'Other').failedChecks).toBe(3);
		expect(batchMemoryOf({ ...state, batchId: `${state.batchId}-other` }, 'e1', 'Node').failedChecks).toBe(0);
		// Older records without an ID: named by execution, node and pause time.
		const old = pauseStateOf(2, 1);
		batchMemoryOf(old, 'e1', 'Node').failedChecks = 2;
		expect(batchMemoryOf(old, 'e1', 'Node').failedChecks).toBe(2);
		expect(batchMemoryOf(old, 'e2', 'Node').failedChecks).toBe(0);
	});

	test('made by the pausing process, it knows every send; a later call finds that memory again', () => {
		const state = { ...pauseStateOf(1, 1), batchId: `batch-${Math.random()}` };
		const pausing = batchMemoryOf(state, 'e', 'Node', true);
		expect([pausing.complete, pausing.items[0].state]).toEqual([true, 'unsent']);
		expect(batchMemoryOf(state, 'e', 'Node')).toBe(pausing);
		const elsewhere = batchMemoryOf({ ...state, batchId: `${state.batchId}-restarted` }, 'e', 'Node');
		expect([elsewhere.complete, elsewhere.items[0].state]).toEqual([false, 'unknown']);
	});

	test('knows the runs the record names, their status as recorded (stale) until a delivery or read says more', () => {
		const state = { ...pauseStateOf(2, 1), batchId: `batch-${Math.random()}` };
		state.items[1] = { ...state.items[1], body: { requestKey: 'k-2' }, runId: 'gen_1', cost: 5 };
		const memory = batchMemoryOf(state, 'e', 'Node');
		expect(memory.items[1]).toEqual({
			itemIndex: 1,
			key: 'k-2',
			firstKey: 'k-2',
			state: 'running',
			run: { id: 'gen_1', status: 'PENDING', createdAt: 0, cost: 5 },
			stale: true,
			earlier: undefined,
		});
		expect(memory.watched.has(1)).toBe(false);
		expect(memory.items[0].run).toBeUndefined();
		memory.learn(1, run('gen_1', 'PROCESSING'), false);
		expect(memory.items[1].stale).toBeUndefined();
	});

	test('knows what else the record says: refusals (after a lost answer or not), lost answers, a moved-on key', () => {
		const { memory } = batch(5, false, (state) => {
			state.items[0].refused = { message: 'invalid' };
			state.items[1].refused = { message: 'refused after a lost answer', mayBeCharged: true };
			state.items[2].lost = true;
			Object.assign(state.items[3], { runId: 'gen_3', earlier: true, body: { requestKey: 'k-4-r2' } });
			Object.assign(state.items[3], { firstKey: 'k-4', attempt: 2 });
		});
		expect(memory.items.map((item) => item.state)).toEqual([
			'refused',
			'refusedAfterLost',
			'answerLost',
			'running',
			'unknown',
		]);
		expect(memory.items[0].failure).toEqual({ message: 'invalid' });
		expect(memory.items[3]).toMatchObject({ key: 'k-4-r2', firstKey: 'k-4', attempt: 2, earlier: true });
		expect(paidRunsOf(memory.items.filter((item) => !item.run))).toEqual([
			{ itemIndex: 1, requestKey: 'key-1' },
			{ itemIndex: 2, requestKey: 'key-2' },
			{ itemIndex: 4, requestKey: 'key-4', unconfirmed: true },
		]);
	});
});
