// Estimate Cost's `estimate` line: what a person reads first in n8n's Table view, for one item and for the batch.
import { itemEstimate, totalEstimate } from '../../../../../nodes/MediaGen/batch/estimateBatch';

describe("one item's estimate", () => {
	test('a known price says how many credits and where the price comes from', () => {
		expect(itemEstimate({ credits: 5, basis: 'catalogue default' })).toBe('5 credits (list price)');
		expect(itemEstimate({ credits: 1, basis: 'catalogue default' })).toBe('1 credit (list price)');
		expect(itemEstimate({ credits: 1800, basis: 'earlier run', runId: 'gen_1' })).toBe(
			'1,800 credits (your last identical run)',
		);
	});

	test('an unknown price says so (basis says why)', () => {
		expect(itemEstimate({ credits: null, basis: 'unknown', why: 'no earlier run' })).toBe('price unknown');
	});
});

describe("the batch's total", () => {
	test('reads at a glance: total, credits left, enough', () => {
		expect(totalEstimate({ totalCredits: 15, unknownItems: 0, creditsLeft: 4970, enough: true })).toBe(
			'Total: 15 credits; 4,970 left; enough',
		);
		expect(totalEstimate({ totalCredits: 120, unknownItems: 0, creditsLeft: 100, enough: false })).toBe(
			'Total: 120 credits; 100 left; not enough',
		);
	});

	test('unknown prices, an unread balance and refused items are named', () => {
		expect(totalEstimate({ totalCredits: 270, unknownItems: 1, creditsLeft: 99_820, enough: null })).toBe(
			'Total: 270 credits + 1 price unknown; 99,820 left; enough for the known prices',
		);
		expect(totalEstimate({ totalCredits: 5, unknownItems: 0, creditsLeft: null, enough: null, refusedItems: 2 })).toBe(
			'Total: 5 credits; credits left not read; 2 items refused',
		);
	});
});
