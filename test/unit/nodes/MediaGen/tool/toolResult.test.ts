// nodes/MediaGen/tool/toolResult.ts: the compact answer an agent reads (only known fields), and a run still going
// as an answer with what to call next.
import { TIME_LIMIT_CODE } from '../../../../../nodes/MediaGen/run/timeLimit';
import { addRunDetails } from '../../../../../nodes/MediaGen/run/runErrors';
import { answerToolCall, stillRunningResult, toolRunResult } from '../../../../../nodes/MediaGen/tool/toolResult';

test('a song run: known fields only, songs keep title, lyrics, length and cover', () => {
	const record = {
		id: 'gen_1',
		kind: 'music',
		model: 'm',
		prompt: 'p',
		options: { resolution: 'song', tier: 'Describe' },
		cost: 60,
		status: 'SUCCEEDED',
		error: null,
		createdAt: 1,
		shinyNewField: 'from a later API version',
		requestKey: 'k',
		files: [{ property: 'data' }],
		outputs: [
			{
				url: 'https://x/1.mp3',
				mime: 'audio/mpeg',
				cover: 'https://x/1.png',
				title: 'T',
				lyrics: 'L',
				seconds: 61,
				bpm: 3,
			},
		],
	};
	expect(toolRunResult(record)).toEqual({
		runId: 'gen_1',
		status: 'SUCCEEDED',
		kind: 'music',
		model: 'm',
		cost: 60,
		requestKey: 'k',
		outputs: [
			{ url: 'https://x/1.mp3', mime: 'audio/mpeg', title: 'T', lyrics: 'L', seconds: 61, cover: 'https://x/1.png' },
		],
	});
});

test('a failed run says why; a run not finished says what to call next', () => {
	const base = { id: 'gen_2', kind: 'video', model: 'm', cost: 20, outputs: [] };
	expect(toolRunResult({ ...base, status: 'FAILED', error: 'upstream', refunded: 20 })).toMatchObject({
		status: 'FAILED',
		error: 'upstream',
		refunded: 20,
	});
	expect(String(toolRunResult({ ...base, status: 'PROCESSING' }).note)).toMatch(/Call the Generation Wait or Get tool/);
});

test('a time-limit error becomes an answer with the run; other errors stay errors', () => {
	const late = addRunDetails(new Error('did not finish'), {
		runId: 'gen_3',
		status: 'PROCESSING',
		cost: 20,
		requestKey: 'k',
		errorCode: TIME_LIMIT_CODE,
	});
	expect(stillRunningResult(late)).toMatchObject({ runId: 'gen_3', status: 'PROCESSING', cost: 20, requestKey: 'k' });
	expect(stillRunningResult(addRunDetails(new Error('x'), { runId: 'gen_4', errorCode: 'rejected' }))).toBeUndefined();
});

describe('a refusal answered to the caller (issue 52, point b)', () => {
	const ctx = { getNode: () => ({ name: 'Tool' }) } as never;
	const refused = (context: object) =>
		Object.assign(new Error('Max Credits per Execution (5) reached'), { description: 'Raise the cap.', context });

	test('an error naming no run and no key is answered, with nothingCharged', async () => {
		const items = await answerToolCall(ctx, true, async () => await Promise.reject(refused({})));
		expect(items[0].json).toEqual({
			error: 'Max Credits per Execution (5) reached\nRaise the cap.',
			nothingCharged: true,
		});
	});

	test("an error that lists other items' paid runs stays an error: it never says nothing was charged", async () => {
		const paidRuns = [{ item: 1, runId: 'gen_a', requestKey: 'k-1', status: 'SUCCEEDED', cost: 5 }];
		await expect(answerToolCall(ctx, true, async () => await Promise.reject(refused({ paidRuns })))).rejects.toThrow(
			/Max Credits per Execution/,
		);
	});
});
