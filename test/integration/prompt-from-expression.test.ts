// A Prompt given by an expression that gives nothing for an item ({{ $json.prompt }} on an item without `prompt`,
// or with `prompt: null`, as Estimate Cost's summary item has) is refused for that item, naming the field; nothing is
// sent for it and nothing is charged. n8n hands such a value to the node as undefined or null, which once went out
// as the words "undefined" or "null" and was charged. The word typed as fixed text is still a prompt.
import { WorkflowExecute } from 'n8n-core';
import { Workflow, type IDataObject, type INode, type INodeExecutionData } from 'n8n-workflow';

import {
	additionalDataFor,
	executionHooks,
	mediaGenNode,
	nextExecutionId,
	NODE_TYPE,
	runToEnd,
	startingExecutionData,
	TestNodeTypes,
} from '../helpers/engine';
import { generate, generateParameters } from '../helpers/generate';
import { chargesOf } from '../helpers/ledger';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend({ timeScale: 0.002, durations: { pendingMs: 20, image: 100, video: 200, music: 100 } });
});
afterAll(async () => backend.sandbox.close());

const fromItem = { prompt: '={{ $json.prompt }}', downloadOutputs: false };
const sentPrompts = (since: number) =>
	backend
		.requests('POST /v1/generations')
		.slice(since)
		.map((r) => (r.body as IDataObject).prompt);

test.each([
	['has no prompt field', { subject: 'a harbour' }, 'the item has no "prompt" field.'],
	['has prompt: null', { prompt: null }, 'the item\'s "prompt" field is null.'],
])('one item that %s: refused, naming the field, nothing sent or charged', async (_, json, what) => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(own.creds, fromItem, [{ json: json as IDataObject }]);
	expect(r.error?.message).toBe(`Prompt: the expression {{ $json.prompt }} gave nothing: ${what}`);
	expect(r.error?.description).toBe(
		'Nothing was submitted and nothing was charged: fix this item and run again. Give every item a "prompt" ' +
			'field, or leave out the items without one (for example with a Filter node) before this step.',
	);
	expect(sentPrompts(posts)).toEqual([]);
	expect(chargesOf(backend.sandbox, own.id)).toEqual([]);
});

test('an empty prompt field is refused as an empty Prompt, nothing sent or charged', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(own.creds, fromItem, [{ json: { prompt: '' } }]);
	expect(r.error?.message).toBe('Prompt is empty. Write at least 1 character.');
	expect(sentPrompts(posts)).toEqual([]);
	expect(chargesOf(backend.sandbox, own.id)).toEqual([]);
});

test('Continue On Fail: the item without a prompt gets an error item, the others run and are charged', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const items = [{ json: { prompt: 'a lighthouse' } }, { json: { other: 1 } }, { json: { prompt: 'a harbour' } }];
	const r = await generate(own.creds, fromItem, items, { nodeOverrides: { onError: 'continueRegularOutput' } });
	expect(r.error).toBeUndefined();
	expect(r.items.map((i) => i.json.status ?? null)).toEqual(['SUCCEEDED', null, 'SUCCEEDED']);
	expect(String(r.items[1].json.error)).toMatch(/Prompt: the expression \{\{ \$json\.prompt \}\} gave nothing/);
	expect(String(r.items[1].json.error)).toMatch(/has no "prompt" field/);
	expect(sentPrompts(posts).sort()).toEqual(['a harbour', 'a lighthouse']);
	expect(chargesOf(backend.sandbox, own.id)).toEqual([5, 5]);
});

test('the word "undefined" typed as fixed text is a prompt and is sent', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(own.creds, { prompt: 'undefined', downloadOutputs: false });
	expect(r.error).toBeUndefined();
	expect(r.items[0].json.status).toBe('SUCCEEDED');
	expect(sentPrompts(posts)).toEqual(['undefined']);
});

/** Estimate Cost → Generate in one workflow through WorkflowExecute; Generate's own output and error. */
async function estimateThenGenerate(creds: object, items: INodeExecutionData[], overrides: Partial<INode> = {}) {
	const nodeTypes = new TestNodeTypes();
	const base = { type: NODE_TYPE, position: [0, 0] as [number, number] };
	const estimate = mediaGenNode(
		nodeTypes,
		{ ...base, id: 'estimate', name: 'Estimate Cost' },
		generateParameters({ ...fromItem, operation: 'estimateCost' }),
	);
	const gen = mediaGenNode(
		nodeTypes,
		{ ...base, id: 'generate', name: 'Generate' },
		generateParameters(fromItem),
		overrides,
	);
	const connections = { 'Estimate Cost': { main: [[{ node: 'Generate', type: 'main' as const, index: 0 }]] } };
	const workflow = new Workflow({ id: 'wf-test', nodes: [estimate, gen], connections, active: false, nodeTypes });
	const executionId = nextExecutionId();
	const { hooks, done } = executionHooks(executionId, 'manual', [estimate, gen], connections);
	const additionalData = additionalDataFor(creds as never, { executionId, hooks });
	const data = startingExecutionData([{ node: estimate, data: { main: [items] }, source: null }]);
	const execute = new WorkflowExecute(additionalData, 'manual', data);
	const run = await runToEnd(() => execute.processRunExecutionData(workflow), done);
	const task = run.data.resultData.runData.Generate?.[0];
	return { items: task?.data?.main?.[0] ?? [], error: task?.error };
}

test('Estimate Cost (a summary item) → Generate: refused, naming it and how to leave it out', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const r = await estimateThenGenerate(own.creds, [
		{ json: { prompt: 'a lighthouse' } },
		{ json: { prompt: 'a harbour' } },
	]);
	expect(r.error?.message).toMatch(
		/^1 of 3 items cannot be sent: item 3: Prompt: the expression \{\{ \$json\.prompt \}\} gave nothing/,
	);
	expect(r.error?.message).toMatch(/"prompt" field is null/);
	expect(r.error?.description).toMatch(/^Nothing was submitted and nothing was charged/);
	expect(r.error?.description).toMatch(/Estimate Cost's summary/);
	expect(r.error?.description).toMatch(/Put the Summary to On Every Item/);
	expect(sentPrompts(posts)).toEqual([]);
	expect(chargesOf(backend.sandbox, own.id)).toEqual([]);
});

test('Estimate Cost → Generate, Continue On Fail: the summary is an error item, the others run', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const estimated = [{ json: { prompt: 'a lighthouse' } }, { json: { prompt: 'a harbour' } }];
	const r = await estimateThenGenerate(own.creds, estimated, { onError: 'continueRegularOutput' });
	expect(r.error).toBeUndefined();
	expect(r.items.map((i) => i.json.status ?? null)).toEqual(['SUCCEEDED', 'SUCCEEDED', null]);
	expect(String(r.items[2].json.error)).toMatch(/"prompt" field is null/);
	expect(String(r.items[2].json.description)).toMatch(/Put the Summary to On Every Item/);
	expect(sentPrompts(posts).sort()).toEqual(['a harbour', 'a lighthouse']);
	expect(chargesOf(backend.sandbox, own.id)).toEqual([5, 5]);
});
