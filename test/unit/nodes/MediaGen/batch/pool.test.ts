/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/MediaGen/batch/pool.ts: the batch pool (order, width, stop after a failure).
import { runPool } from '../../../../../nodes/MediaGen/batch/pool';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runPool', () => {
	test('keeps input order and never has more than the width in flight', async () => {
		let inFlight = 0;
		let most = 0;
		const results = await runPool(7, 3, async (i) => {
			inFlight++;
			most = Math.max(most, inFlight);
			await tick(10 * (7 - i));
			inFlight--;
			return i * 2;
		});
		expect(most).toBe(3);
		expect(results.map((r) => (r?.ok ? r.value : undefined))).toEqual([0, 2, 4, 6, 8, 10, 12]);
	});

	test('keeps a failure per item and runs the rest', async () => {
		const results = await runPool(3, 2, async (i) => {
			if (i === 1) throw new Error('boom');
			return i;
		});
		expect(results.map((r) => r?.ok)).toEqual([true, false, true]);
	});

	test('with stopOnError no new job starts after a failure; jobs in flight finish', async () => {
		const started: number[] = [];
		const results = await runPool(
			6,
			2,
			async (i) => {
				started.push(i);
				if (i === 0) throw new Error('first fails');
				await tick(30);
				return i;
			},
			true,
		);
		expect(started).toEqual([0, 1]);
		expect(Array.from(results, (r) => (r ? r.ok : 'not started'))).toEqual([
			false,
			true,
			'not started',
			'not started',
			'not started',
			'not started',
		]);
	});
});
