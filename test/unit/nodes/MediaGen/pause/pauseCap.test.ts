import fc from 'fast-check';

import { expectedSpend, pauseCapRefusal } from '../../../../../nodes/MediaGen/pause/pauseCap';
import type { PauseState } from '../../../../../nodes/MediaGen/pause/pauseState';
import { pauseStateOf } from '../../../../helpers/pauseState';

/** A capped batch: each item's predicted price; `spentBefore` from earlier passes of the step. */
function cappedState(prices: number[], limit: number, spentBefore = 0): PauseState {
	const state = pauseStateOf(prices.length, 3);
	state.cap = { limit, spentBefore };
	state.items.forEach((entry, i) => (entry.price = prices[i]));
	return state;
}

describe('pauseCapRefusal', () => {
	test('without a cap, or for an item recorded without a price (older records), nothing is refused', () => {
		const state = pauseStateOf(2, 1);
		expect(pauseCapRefusal(state, 0, () => 1_000)).toBeUndefined();
		const capped = cappedState([20, 20], 10);
		delete capped.items[1].price;
		expect(pauseCapRefusal(capped, 1, () => undefined)).toBeUndefined();
	});

	test('counts what the step spent before and the real cost of each sent run', () => {
		const state = cappedState([20, 20, 20], 60, 15);
		const costs = new Map([[0, 20]]);
		expect(pauseCapRefusal(state, 1, (p) => costs.get(p))).toBeUndefined();
		costs.set(1, 20);
		const refusal = pauseCapRefusal(state, 2, (p) => costs.get(p));
		expect(refusal?.message).toBe(
			'Max Credits per Execution (60) reached: this run would cost 20 credits and 55 credits are already spent by ' +
				'this step in this execution',
		);
		expect(refusal?.description).toMatch(/^It was not submitted, so nothing was charged for it\./);
	});

	test('scales the next price by what the plan charged, never below the prediction', () => {
		const state = cappedState([20, 20, 20], 89);
		expect(pauseCapRefusal(state, 2, (p) => (p < 2 ? 30 : undefined))?.message).toMatch(/would cost 30 credits/);
		// A plan cheaper than the catalogue is not relied on: the next is still counted at its full prediction.
		expect(pauseCapRefusal(cappedState([20, 20, 20], 30), 2, (p) => (p < 2 ? 5 : undefined))).toBeUndefined();
		expect(pauseCapRefusal(cappedState([20, 20, 20], 29), 2, (p) => (p < 2 ? 5 : undefined))?.message).toMatch(
			/would cost 20 credits/,
		);
	});

	test('an earlier item another process may have sent counts at its scaled price (soak seed 20261129 path 597)', () => {
		// Two processes: this one learnt items 0 and 1 (30 each, predicted 20); item 2 it could not learn. Counting item 2
		// as free let each process send past the cap with the other's runs unseen.
		const state = cappedState([20, 20, 20, 20], 110);
		const costOf = (p: number) => (p < 2 ? 30 : undefined);
		expect(pauseCapRefusal(state, 3, costOf)).toBeUndefined();
		const refusal = pauseCapRefusal(state, 3, costOf, (p) => p === 2);
		expect(refusal?.message).toBe(
			'Max Credits per Execution (110) reached: this run would cost 30 credits and 90 credits are already spent or ' +
				'possibly spent by this step in this execution',
		);
		expect(refusal?.description).toMatch(/The 30 credits counted include earlier items another n8n process may have/);
		// Only earlier items count: a later unknown item does not block an earlier one.
		expect(pauseCapRefusal(state, 2, costOf, (p) => p === 3)).toBeUndefined();
	});

	test('expectedSpend counts real costs, and scaled prices for the items still to send', () => {
		const state = cappedState([20, 20, 20, 20], 200, 10);
		state.items[3].refused = { message: 'refused' };
		expect(expectedSpend(state, (p) => (p === 0 ? 30 : undefined))).toBe(10 + 30 + 30 + 30);
	});

	test('property: sent one at a time, the batch passes the cap by at most one run', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({ price: fc.integer({ min: 1, max: 60 }), factor: fc.double({ min: 0, max: 3, noNaN: true }) }),
					{
						minLength: 1,
						maxLength: 30,
					},
				),
				fc.integer({ min: 0, max: 400 }),
				fc.integer({ min: 0, max: 100 }),
				(items, limit, spentBefore) => {
					const state = cappedState(
						items.map((i) => i.price),
						limit,
						spentBefore,
					);
					const costs = new Map<number, number>();
					let crossings = 0;
					for (const [position, item] of items.entries()) {
						if (pauseCapRefusal(state, position, (p) => costs.get(p))) continue;
						const spent = spentBefore + [...costs.values()].reduce((s, c) => s + c, 0);
						expect(spent).toBeLessThanOrEqual(limit);
						const cost = Math.round(item.price * item.factor);
						if (spent + cost > limit) crossings++;
						costs.set(position, cost);
					}
					expect(crossings).toBeLessThanOrEqual(1);
				},
			),
			{ numRuns: 500, seed: 41 },
		);
	});
});
