// nodes/MediaGen/run/spendingCap.ts: Max Credits per Execution.
import type { IDataObject } from 'n8n-workflow';

import { CAP_TOTAL_KEY, isCapRefusal, SpendingCap } from '../../nodes/MediaGen/run/spendingCap';

describe('the spending cap', () => {
	const quote = (signature: string, atDefaults = true) => ({ signature, catalogueCredits: 5, atDefaults });

	test('refuses what would cross the cap and learns the price of accepted runs', async () => {
		const cap = new SpendingCap(20, {});
		expect(await cap.submit(quote('a'), async () => ({ id: 'r1', cost: 8 }))).toEqual({ id: 'r1', cost: 8 });
		expect(cap.estimate(quote('a'))).toBe(8);
		expect(await cap.submit(quote('a'), async () => ({ id: 'r2', cost: 8 }))).toEqual({ id: 'r2', cost: 8 });
		const refused = await cap.submit(quote('a'), async () => ({ id: 'r3', cost: 8 }));
		expect(isCapRefusal(refused)).toBe(true);
		expect(refused).toEqual({ cap: 20, spent: 16, estimate: 8 });
		cap.refund({ id: 'r1', cost: 8 });
		expect(cap.spent).toBe(8);
	});

	test('a run returned again for the same key is counted once; the total spans loop passes of one execution', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext);
		await first.submit(quote('a'), async () => ({ id: 'same', cost: 5 }));
		await first.submit(quote('a'), async () => ({ id: 'same', cost: 5 }));
		expect(first.spent).toBe(5);
		expect(new SpendingCap(100, nodeContext).spent).toBe(5);
	});

	test('the total is plain data in the node context: read back after n8n saved and loaded it', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext);
		await first.submit(quote('a'), async () => ({ id: 'r1', cost: 5 }));
		first.plan(7);
		const loaded = JSON.parse(JSON.stringify(nodeContext)) as IDataObject;
		expect(loaded[CAP_TOTAL_KEY]).toEqual({ spent: 12, counted: ['r1'] });
		const later = new SpendingCap(100, loaded);
		expect(later.spent).toBe(12);
		later.refund({ id: 'r1', cost: 5 });
		expect(later.spent).toBe(7);
	});

	test('the up-front check sums only prices known for certain', () => {
		const cap = new SpendingCap(12, {});
		expect(cap.firstCertainOverrun([quote('a'), quote('b'), quote('c')])).toEqual({ total: 15, count: 3 });
		expect(cap.firstCertainOverrun([quote('a'), quote('b', false), quote('c', false)])).toBeUndefined();
	});
});
