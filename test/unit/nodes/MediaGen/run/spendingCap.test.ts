/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/MediaGen/run/spendingCap.ts: Max Credits per Execution.
import type { IDataObject } from 'n8n-workflow';

import { PriceBook } from '../../../../../nodes/MediaGen/run/priceBook';
import {
	CAP_TOTAL_KEY,
	capRefusalMessage,
	isCapRefusal,
	SpendingCap,
} from '../../../../../nodes/MediaGen/run/spendingCap';
import { catalogue, catalogueModel } from '../../../../helpers/catalogue';

const image = catalogueModel('studio-image-v1'); // 5 credits at defaults
const video = catalogueModel('lumora-motion-3-fast'); // 90 at defaults
const book = () => new PriceBook(catalogue, { runs: [], note: 'looked through its newest 0 runs' });
const atDefaults = { model: image, body: { options: {} } };
const longer = { model: video, body: { options: { duration: 8 } } };

describe('the spending cap', () => {
	test('refuses what would cross the cap; a refund takes a failed run off', async () => {
		const cap = new SpendingCap(12, {}, book());
		expect(await cap.submit(atDefaults, async () => ({ id: 'r1', cost: 5 }))).toEqual({ id: 'r1', cost: 5 });
		expect(await cap.submit(atDefaults, async () => ({ id: 'r2', cost: 5 }))).toEqual({ id: 'r2', cost: 5 });
		const refused = await cap.submit(atDefaults, async () => ({ id: 'r3', cost: 5 }));
		expect(isCapRefusal(refused)).toBe(true);
		expect(refused).toEqual({ cap: 12, spent: 10, price: { credits: 5, basis: 'catalogue default' } });
		cap.refund({ id: 'r1', cost: 5 });
		expect(cap.spent).toBe(5);
	});

	test('a run of unknown price goes while credits are left, and its price is learnt for the next one', async () => {
		const cap = new SpendingCap(100, {}, book());
		expect(await cap.submit(longer, async () => ({ id: 'v1', cost: 144 }))).toEqual({ id: 'v1', cost: 144 });
		expect(cap.spent).toBe(144);
		const refused = await cap.submit(longer, async () => ({ id: 'v2', cost: 144 }));
		expect(refused).toEqual({ cap: 100, spent: 144, price: { credits: 144, basis: 'earlier run', runId: 'v1' } });
	});

	test('nothing of unknown price goes once the cap is reached, and the refusal says why', async () => {
		const cap = new SpendingCap(10, {}, book());
		await cap.submit(atDefaults, async () => ({ id: 'r1', cost: 5 }));
		await cap.submit(atDefaults, async () => ({ id: 'r2', cost: 5 }));
		const refused = await cap.submit(longer, async () => ({ id: 'v1', cost: 144 }));
		expect(isCapRefusal(refused)).toBe(true);
		expect(capRefusalMessage(refused as never)).toBe(
			"Max Credits per Execution (10) reached: 10 credits are already spent by this step in this execution, and this run's " +
				'price is not known in advance (this account has no earlier run of lumora-motion-3-fast with resolution 720p, ' +
				'duration 8, audio false (looked through its newest 0 runs))',
		);
	});

	test('submissions under a cap go one at a time: a run of unknown price is sent alone', async () => {
		const cap = new SpendingCap(1000, {}, book());
		let inFlight = 0;
		let most = 0;
		const submit = (id: string, cost: number) => async () => {
			most = Math.max(most, ++inFlight);
			await new Promise((r) => setImmediate(r));
			inFlight--;
			return { id, cost };
		};
		await Promise.all([cap.submit(longer, submit('a', 144)), cap.submit(atDefaults, submit('b', 5))]);
		expect(most).toBe(1);
		expect(cap.spent).toBe(149);
	});

	test('a run returned again for the same key is counted once; the total spans loop passes of one execution', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext, book());
		await first.submit(atDefaults, async () => ({ id: 'same', cost: 5 }));
		await first.submit(atDefaults, async () => ({ id: 'same', cost: 5 }));
		expect(first.spent).toBe(5);
		expect(new SpendingCap(100, nodeContext, book()).spent).toBe(5);
	});

	test('the total is plain data in the node context: read back after n8n saved and loaded it', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext, book());
		await first.submit(atDefaults, async () => ({ id: 'r1', cost: 5 }));
		first.plan(7);
		const loaded = JSON.parse(JSON.stringify(nodeContext)) as IDataObject;
		expect(loaded[CAP_TOTAL_KEY]).toEqual({ spent: 12, counted: ['r1'] });
		const later = new SpendingCap(100, loaded, book());
		expect(later.spent).toBe(12);
		later.refund({ id: 'r1', cost: 5 });
		expect(later.spent).toBe(7);
	});

	test('the up-front check sums only prices known in advance', () => {
		const cap = new SpendingCap(12, {}, book());
		expect(cap.firstCertainOverrun([atDefaults, atDefaults, atDefaults])).toEqual({ total: 15, count: 3 });
		expect(cap.firstCertainOverrun([atDefaults, longer, longer])).toBeUndefined();
	});
});

describe('a submission that failed may still have been charged (issue 41)', () => {
	const lost = (requestKey: string) =>
		Object.assign(new Error('no usable answer'), { context: { requestKey, mayBeCharged: true } });

	test('a lost answer counts at its predicted price, so the next run that would cross the cap is refused', async () => {
		const cap = new SpendingCap(10, {}, book());
		await expect(cap.submit(atDefaults, async () => Promise.reject(lost('k-1')))).rejects.toThrow('no usable answer');
		expect(cap.spent).toBe(5);
		await cap.submit(atDefaults, async () => ({ id: 'r2', cost: 5 }));
		expect(isCapRefusal(await cap.submit(atDefaults, async () => ({ id: 'r3', cost: 5 })))).toBe(true);
	});

	test('a lost answer of unknown price fills the cap: no second run of unknown price goes', async () => {
		const cap = new SpendingCap(100, {}, book());
		await expect(cap.submit(longer, async () => Promise.reject(lost('v-1')))).rejects.toThrow();
		expect(cap.spent).toBe(100);
		expect(isCapRefusal(await cap.submit(longer, async () => ({ id: 'v2', cost: 144 })))).toBe(true);
	});

	test('a run an error names (a key that returned a run of another request) counts at its cost, once', async () => {
		const cap = new SpendingCap(100, {}, book());
		const named = Object.assign(new Error('Request key "k" already belongs to run gen_x'), {
			context: { runId: 'gen_x', status: 'SUCCEEDED', cost: 25, requestKey: 'k' },
		});
		await expect(cap.submit(atDefaults, async () => Promise.reject(named))).rejects.toThrow();
		await expect(cap.submit(atDefaults, async () => Promise.reject(named))).rejects.toThrow();
		expect(cap.spent).toBe(25);
		const refusedAt400 = Object.assign(new Error('invalid'), { context: { requestKey: 'k2' } });
		await expect(cap.submit(atDefaults, async () => Promise.reject(refusedAt400))).rejects.toThrow();
		expect(cap.spent).toBe(25);
	});

	test('an item whose typed key may return an earlier run goes first and while credits are left; that run is free', async () => {
		const earlier = {
			id: 'gen_old',
			kind: 'video',
			model: video.id,
			prompt: 'a fox',
			options: { duration: 8 },
			cost: 144,
		};
		const history = new PriceBook(catalogue, {
			runs: [earlier as never, { ...earlier, id: 'gen_failed', status: 'FAILED' } as never],
			note: '',
		});
		const item = (itemIndex: number, typedKey = true, prompt = 'a fox') => ({
			...longer,
			itemIndex,
			typedKey,
			body: { ...longer.body, prompt },
		});
		// A failed run (refunded) is given back by no key; a default key is never an earlier execution's.
		expect(history.earlierRunsLike(item(0))).toEqual(['gen_old']);
		const cap = new SpendingCap(200, {}, history);
		const order = cap.sendingOrder([item(0, true, 'a cat'), item(1, false), item(2), item(3)]);
		expect(order.map((r) => r.itemIndex)).toEqual([2, 3, 0, 1]);
		expect(cap.firstCertainOverrun([item(2), item(3)])).toBeUndefined();
		// The first of two like items gets a new run: charged. The run made earlier is still to be given back.
		expect(await cap.submit(item(2), async () => ({ id: 'v_new', cost: 144 }))).toEqual({ id: 'v_new', cost: 144 });
		expect(cap.spent).toBe(144);
		expect(await cap.submit(item(3), async () => ({ id: 'gen_old', cost: 144 }))).toEqual({ id: 'gen_old', cost: 144 });
		expect(cap.spent).toBe(144);
		// Given back once, it vouches for no other item: a third like item has a known price again.
		expect(await cap.submit(item(4), async () => ({ id: 'v3', cost: 144 }))).toMatchObject({ price: { credits: 144 } });
		const full = new SpendingCap(100, { [CAP_TOTAL_KEY]: { spent: 100, counted: [] } }, history);
		const refused = await full.submit(item(0), async () => ({ id: 'gen_old', cost: 144 }));
		expect(capRefusalMessage(refused as never)).toContain(
			'its Request Key may return run gen_old, made earlier, at no charge, or start a new run at 144 credits',
		);
	});
});
