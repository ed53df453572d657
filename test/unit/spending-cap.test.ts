// nodes/MediaGen/run/spendingCap.ts: Max Credits per Execution.
import { isCapRefusal, SpendingCap } from '../../nodes/MediaGen/run/spendingCap';

describe('the spending cap', () => {
	const quote = (signature: string, atDefaults = true) => ({ signature, catalogueCredits: 5, atDefaults });

	test('refuses what would cross the cap and learns the price of accepted runs', async () => {
		const cap = new SpendingCap(20, `unit-${Math.random()}`);
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
		const key = `unit-${Math.random()}`;
		const first = new SpendingCap(100, key);
		await first.submit(quote('a'), async () => ({ id: 'same', cost: 5 }));
		await first.submit(quote('a'), async () => ({ id: 'same', cost: 5 }));
		expect(first.spent).toBe(5);
		expect(new SpendingCap(100, key).spent).toBe(5);
	});

	test('the up-front check sums only prices known for certain', () => {
		const cap = new SpendingCap(12, `unit-${Math.random()}`);
		expect(cap.firstCertainOverrun([quote('a'), quote('b'), quote('c')])).toEqual({ total: 15, count: 3 });
		expect(cap.firstCertainOverrun([quote('a'), quote('b', false), quote('c', false)])).toBeUndefined();
	});
});
