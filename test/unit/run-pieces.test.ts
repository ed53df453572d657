// Pure pieces of the run path: request keys, the spending cap, answer shapes, media types, covers,
// the words of a failed or cancelled run, and of runs already paid for.
import type { INode } from 'n8n-workflow';

import { coverPrefix } from '../../nodes/shared/downloads';
import { canonicalMediaType } from '../../nodes/shared/mediaTypes';
import { mediaTypeOf } from '../../nodes/MediaGen/files/upload';
import type { RunRecord } from '../../nodes/shared/records';
import { paidRunsNote, withPaidRuns } from '../../nodes/MediaGen/run/paidRuns';
import { retryKey, uniquePerItem } from '../../nodes/MediaGen/run/requestKey';
import { errorItem, failedRunError } from '../../nodes/MediaGen/run/runErrors';
import { isCapRefusal, SpendingCap } from '../../nodes/MediaGen/run/spendingCap';
import { mismatchOf } from '../../nodes/MediaGen/run/submission';
import { testNode } from '../helpers/node';
import { generationAnswerProblem, generationListProblem } from '../../nodes/shared/answers';

const node: INode = testNode();
const ctx = { getNode: () => node } as never;
const run = (over: Partial<RunRecord> = {}): RunRecord => ({
	id: 'gen_1',
	kind: 'image',
	model: 'm',
	prompt: 'p',
	options: { resolution: '1K' },
	cost: 5,
	status: 'PENDING',
	error: null,
	createdAt: 1,
	outputs: [],
	...over,
});

describe('request keys', () => {
	test('a typed key shared by items gets the item number; distinct or default keys stay as they are', () => {
		const keys = uniquePerItem([
			{ itemIndex: 0, key: 'k', typed: true },
			{ itemIndex: 1, key: 'k', typed: true },
			{ itemIndex: 2, key: 'other', typed: true },
			{ itemIndex: 3, key: 'n8n-x-0', typed: false },
		]);
		expect([...keys.values()]).toEqual(['k-1', 'k-2', 'other', 'n8n-x-0']);
	});

	test('keys stay within 120 characters when a suffix is added', () => {
		const long = 'k'.repeat(120);
		expect(
			uniquePerItem([
				{ itemIndex: 0, key: long, typed: true },
				{ itemIndex: 9, key: long, typed: true },
			]).get(9),
		).toHaveLength(120);
		expect(retryKey(long, 3)).toHaveLength(120);
		expect(retryKey(long, 3).endsWith('-r3')).toBe(true);
		expect(retryKey('abc', 1)).toBe('abc');
		expect(retryKey('abc', 2)).toBe('abc-r2');
	});

	test('a returned run made for another request is told apart', () => {
		const body = { model: 'm', prompt: 'p', options: { resolution: '1K' } };
		expect(mismatchOf(run(), body)).toEqual([]);
		expect(mismatchOf(run({ prompt: 'q' }), body)).toEqual(['prompt']);
		expect(mismatchOf(run({ model: 'n', options: { resolution: '2K' } }), body)).toEqual([
			'model (n)',
			'options (resolution)',
		]);
	});
});

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

describe('answer shapes', () => {
	test('a generation answer needs a record with id, status, kind and model', () => {
		expect(generationAnswerProblem({})).toBe('no "generation" record in the answer');
		expect(generationAnswerProblem({ generation: { id: 'g' } })).toMatch(/has no status, kind, model/);
		expect(generationAnswerProblem({ generation: run() })).toBeUndefined();
		expect(generationAnswerProblem({ generation: run(), extra: 1 })).toBeUndefined();
	});

	test('a list answer needs a generations list of records', () => {
		expect(generationListProblem({ generations: [run()], next_before: null })).toBeUndefined();
		expect(generationListProblem({ generations: [{}] })).toMatch(/generations\[0\]/);
		expect(generationListProblem({ generations: [], next_before: 'x' })).toMatch(/next_before/);
	});
});

describe('media types and covers', () => {
	test('aliases are one type', () => {
		expect(canonicalMediaType('image/jpg')).toBe('image/jpeg');
		expect(canonicalMediaType('audio/x-wav; charset=binary')).toBe('audio/wav');
		expect(canonicalMediaType('text/plain')).toBeUndefined();
		expect(mediaTypeOf({ data: '', mimeType: 'image/jpg' })).toBe('image/jpeg');
		expect(mediaTypeOf({ data: '', mimeType: 'application/octet-stream', fileName: 'a.M4A' })).toBe('audio/mp4');
	});

	test('covers move aside only when the files take their names', () => {
		expect(coverPrefix('data', 2)).toBe('cover');
		expect(coverPrefix('cover', 2)).toBe('cover_cover');
		expect(coverPrefix('cover', 1)).toBe('cover_cover');
	});
});

describe('failed and cancelled runs', () => {
	test('a failed run names its refund', () => {
		const error = failedRunError(ctx, run({ status: 'FAILED', error: 'upstream', refunded: 5 }), 0, 'key-1');
		expect(error.message).toBe('Run gen_1 failed: upstream');
		expect(error.description).toMatch(/^5 credits were refunded automatically/);
		expect(errorItem(error, 0).json).toMatchObject({
			runId: 'gen_1',
			requestKey: 'key-1',
			status: 'FAILED',
			refunded: 5,
		});
	});

	test('a cancelled run claims no refund', () => {
		const error = failedRunError(ctx, run({ status: 'CANCELED' }), 0);
		expect(error.message).toMatch(/was cancelled/);
		expect(error.description).not.toMatch(/refunded/);
		expect(errorItem(error, 0).json.refunded).toBeUndefined();
	});
});

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
