// nodes/MediaGen/pause/batchWalk.ts: what the resume calls of this process remember of a batch, where each item of it
// stands, and what it paid for.
import type { RunRecord } from '../../../../../nodes/shared/records';
import { BatchMemory, batchMemoryOf, chargeOf, reportOf } from '../../../../../nodes/MediaGen/pause/batchWalk';
import { paidRunsOf } from '../../../../../nodes/MediaGen/run/runErrors';
import { pauseStateOf } from '../../../../helpers/pauseState';

const run = (id: string, status: string, cost = 5) => ({ id, status, cost }) as RunRecord;

function batch(items: number) {
	const state = pauseStateOf(items, 2);
	state.items.forEach((entry, i) => (entry.body.requestKey = `key-${i}`));
	return { state, memory: new BatchMemory() };
}

test('every kind of item, and what each was or may have been charged for', () => {
	const { state, memory } = batch(7);
	memory.learn(0, run('gen_0', 'SUCCEEDED'), true);
	memory.learn(1, run('gen_1', 'FAILED'), true);
	memory.learn(2, run('gen_2', 'PROCESSING'), true);
	// Recorded at the pause and not read since: its status may be stale.
	memory.learn(3, run('gen_3', 'PENDING'), true, true);
	memory.unanswered.add(4);
	memory.refused.set(5, { message: 'refused after a lost answer', mayBeCharged: true });
	state.items[6].refused = { message: 'over the cap' };
	const { outcomes, complete } = reportOf(state, memory);
	expect(outcomes.map((o) => o.kind)).toEqual([
		'finished',
		'finished',
		'running',
		'running',
		'unanswered',
		'refused',
		'refused',
	]);
	expect(complete).toBe(false);
	expect(paidRunsOf(outcomes.map((o) => chargeOf(state, o)))).toEqual([
		{ id: 'gen_0', itemIndex: 0, cost: 5, status: 'SUCCEEDED', requestKey: 'key-0' },
		{ id: 'gen_2', itemIndex: 2, cost: 5, status: 'PROCESSING', requestKey: 'key-2' },
		{ id: 'gen_3', itemIndex: 3, cost: 5, status: undefined, requestKey: 'key-3' },
		{ itemIndex: 4, requestKey: 'key-4' },
		{ itemIndex: 5, requestKey: 'key-5' },
	]);
});

test('items this process does not know: never sent once it knows every submission, else unconfirmed', () => {
	const { state, memory } = batch(1);
	expect(paidRunsOf(reportOf(state, memory).outcomes.map((o) => chargeOf(state, o)))).toEqual([
		{ itemIndex: 0, requestKey: 'key-0', unconfirmed: true },
	]);
	memory.complete = true;
	expect(reportOf(state, memory).outcomes[0].kind).toBe('unsent');
	expect(paidRunsOf(reportOf(state, memory).outcomes.map((o) => chargeOf(state, o)))).toEqual([]);
});

describe("the resume calls' memory of a batch", () => {
	const run = (id: string, status: string) => ({ id, status }) as RunRecord;

	test('counts runs in flight, including items being sent, and never lets an older state replace a final one', () => {
		const memory = new BatchMemory();
		memory.learn(0, run('a', 'PROCESSING'), true);
		memory.learn(1, run('b', 'SUCCEEDED'), true);
		memory.sending.add(2);
		expect(memory.inFlight()).toBe(2);
		memory.learn(1, run('b', 'PENDING'), false);
		expect(memory.isFinal(1)).toBe(true);
		expect(memory.runs.get(1)?.watched).toBe(true);
		memory.learn(0, run('a', 'SUCCEEDED'), false);
		expect(memory.inFlight()).toBe(1);
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

	test('knows the runs the record names, their status as recorded (stale) until a delivery or read says more', () => {
		const state = { ...pauseStateOf(2, 1), batchId: `batch-${Math.random()}` };
		state.items[1] = { ...state.items[1], runId: 'gen_1', cost: 5 };
		const memory = batchMemoryOf(state, 'e', 'Node');
		expect(memory.runs.get(1)).toEqual({
			run: { id: 'gen_1', status: 'PENDING', createdAt: 0, cost: 5 },
			watched: false,
			stale: true,
		});
		expect(memory.runs.has(0)).toBe(false);
		memory.learn(1, run('gen_1', 'PROCESSING'), false);
		expect(memory.runs.get(1)?.stale).toBeUndefined();
	});
});
