// Pure pieces of the node as an AI tool: how it knows it is one, the compact answer (only known fields),
// a run still going as an answer with what to call next, and the refusal of pause mode in a tool call.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { readRunSettings } from '../../nodes/MediaGen/run/runSettings';
import { TIME_LIMIT_CODE, TOOL_TIME_LIMIT_MS } from '../../nodes/MediaGen/run/timeLimit';
import { addRunDetails } from '../../nodes/MediaGen/run/runErrors';
import { isToolCall } from '../../nodes/MediaGen/run/toolCall';
import { stillRunningResult, toolRunResult } from '../../nodes/MediaGen/tool/toolResult';
import { testNode } from '../helpers/node';

function context(type: string, parameters: IDataObject = {}) {
	const node = testNode({ name: 'Generate Media', type, parameters: parameters as INodeParameters });
	return {
		getNode: () => node,
		getNodeParameter: (name: string, _i: number, fallback?: unknown) => parameters[name] ?? fallback,
	} as never;
}

test('the tool variant is told by the type name n8n derives (…Tool), as n8n-workflow does for @tool', () => {
	expect(isToolCall(context('n8n-nodes-mediagen.mediaGenTool'))).toBe(true);
	expect(isToolCall(context('n8n-nodes-mediagen.mediaGen'))).toBe(false);
});

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

test('pause mode is refused in a tool call; a tool call waits 45 s unless a time limit is set', () => {
	const pause = { waitForCompletion: true, waitMode: 'pause', waiting: {} };
	expect(() => readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', pause), 0)).toThrow(
		'Waiting: pause mode cannot run inside an AI tool call',
	);
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGen', pause), 0).mode).toBe('pause');
	const poll = { waitForCompletion: true, waiting: {} };
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', poll), 0).timeoutMs).toBe(TOOL_TIME_LIMIT_MS);
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGen', poll), 0).timeoutMs).toBe(0);
	const set = { ...poll, waiting: { timeoutMinutes: 5 } };
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', set), 0).timeoutMs).toBe(300_000);
});
