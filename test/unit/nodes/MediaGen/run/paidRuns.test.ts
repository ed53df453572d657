// nodes/MediaGen/run/paidRuns.ts: the note naming runs already paid for when a step stops.
import { paidRunsNote, withPaidRuns } from '../../../../../nodes/MediaGen/run/paidRuns';

describe('runs already paid for when a step stops', () => {
	test('each run is named with its item, cost and status, with how to get its files without paying again', () => {
		const note = paidRunsNote([
			{ id: 'gen_a', itemIndex: 0, cost: 5, status: 'SUCCEEDED' },
			{ id: 'gen_b', itemIndex: 3, cost: 1, status: 'RUNNING' },
			{ id: 'gen_c', itemIndex: 4 },
		]);
		expect(note).toContain(
			'Runs of this step already paid for: gen_a (item 1, 5 credits, SUCCEEDED); gen_b (item 4, 1 credit, RUNNING); ' +
				'gen_c (item 5).',
		);
		expect(note).toMatch(/Generation → Get \(Run ID\), which charges nothing/);
		expect(note).toMatch(/"Continue On Fail"/);
	});

	test('no paid runs, no note; the note goes under an existing description', () => {
		expect(paidRunsNote([])).toBe('');
		const bare = withPaidRuns(new Error('x') as Error & { description?: string }, []);
		expect(bare.description).toBeUndefined();
		const error = Object.assign(new Error('Run gen_x failed'), { description: '5 credits were refunded.' });
		withPaidRuns(error, [{ id: 'gen_a', itemIndex: 1 }]);
		expect(error.description).toMatch(
			/^5 credits were refunded\.\n\nRuns of this step already paid for: gen_a \(item 2\)/,
		);
	});
});
