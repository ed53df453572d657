// nodes/MediaGen/pause/batchMemory.ts: what the resume calls of this process remember of a batch.
import type { RunRecord } from '../../../../../nodes/shared/records';
import { BatchMemory, batchMemoryOf } from '../../../../../nodes/MediaGen/pause/batchMemory';
import { pauseStateOf } from '../../../../helpers/pauseState';

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
