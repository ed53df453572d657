// nodes/MediaGen/pause/batchWalk.ts: where each item of a paused batch stands, and the one list of what it paid for.
import type { RunRecord } from '../../../../../nodes/shared/records';
import { BatchMemory } from '../../../../../nodes/MediaGen/pause/batchMemory';
import { paidRunsOf, reportOf } from '../../../../../nodes/MediaGen/pause/batchWalk';
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
	expect(paidRunsOf(state, outcomes)).toEqual([
		{ id: 'gen_0', itemIndex: 0, cost: 5, status: 'SUCCEEDED', requestKey: 'key-0' },
		{ id: 'gen_2', itemIndex: 2, cost: 5, status: 'PROCESSING', requestKey: 'key-2' },
		{ id: 'gen_3', itemIndex: 3, cost: 5, status: undefined, requestKey: 'key-3' },
		{ itemIndex: 4, requestKey: 'key-4' },
		{ itemIndex: 5, requestKey: 'key-5' },
	]);
});

test('items this process does not know: never sent once it knows every submission, else unconfirmed', () => {
	const { state, memory } = batch(1);
	expect(paidRunsOf(state, reportOf(state, memory).outcomes)).toEqual([
		{ itemIndex: 0, requestKey: 'key-0', unconfirmed: true },
	]);
	memory.complete = true;
	expect(reportOf(state, memory).outcomes[0].kind).toBe('unsent');
	expect(paidRunsOf(state, reportOf(state, memory).outcomes)).toEqual([]);
});
