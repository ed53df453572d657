// nodes/MediaGen/pause/batchMemory.ts: what the resume calls of this process remember of a batch.
import type { RunRecord } from '../../../../../nodes/shared/records';
import { BatchMemory, batchMemoryOf } from '../../../../../nodes/MediaGen/pause/batchMemory';

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
		const key = `batch-${Math.random()}`;
		batchMemoryOf(key).failedChecks = 3;
		expect(batchMemoryOf(key).failedChecks).toBe(3);
		expect(batchMemoryOf(`${key}-other`).failedChecks).toBe(0);
	});
});
