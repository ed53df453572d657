/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The node as an AI tool, through n8n-core's own tool code (test/helpers/toolHost.ts) against the sandbox:
// every call without a Request Key makes its own run (MCP-like calls with no execution, and several calls
// inside one agent execution), a key passed by the caller brings its run back, n8n's Retry On Fail keeps the
// call's key, the answer is compact JSON with no file downloaded, a call refused before sending is an answer that
// says what to change (n8n's agents read an answer, not always an error) and charges nothing,
// pause mode cannot be chosen, a run longer than the call's time limit comes back as its run ID, and Max Credits per
// Execution is shared by the calls of a tool node when there is no execution.
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { agentCalls, mcpCall, mcpTools, type ToolSetup } from '../helpers/toolHost';

let backend: TestBackend;

beforeAll(async () => {
	backend = await startBackend({ durations: { pendingMs: 50, image: 300, video: 300, music: 300 } });
});

afterAll(async () => {
	await backend.sandbox.close();
});

const FROM_AI_PROMPT = "={{ $fromAI('prompt', 'What the picture shows, in plain words', 'string') }}";
const FROM_AI_KEY =
	"={{ $fromAI('requestKey', 'Leave empty for a new run; repeat a key to get that run back', 'string', '') }}";

function generateTool(parameters: IDataObject = {}, nodeOverrides: ToolSetup['nodeOverrides'] = {}): ToolSetup {
	return {
		credentials: backend.apiCredentials,
		nodeOverrides,
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: FROM_AI_PROMPT,
			...parameters,
		},
	};
}

const submissions = () => backend.requests('POST /v1/generations');
const keysSince = (count: number) =>
	submissions()
		.slice(count)
		.map((e) => String((e.body as IDataObject).requestKey));

/** A call refused before anything was sent: an answer the agent reads (not a thrown error), and its text. */
function refusal(answer: string): string {
	const [first] = parsed(answer);
	expect(first.nothingCharged).toBe(true);
	return String(first.error);
}

function parsed(answer: string): IDataObject[] {
	try {
		return JSON.parse(answer) as IDataObject[];
	} catch {
		throw new Error(`Not a JSON answer: ${answer}`);
	}
}

test('the tool lists a prompt field from $fromAI and a description that says what it costs and returns', async () => {
	const [tool] = await mcpTools(generateTool({ additionalFields: { requestKey: FROM_AI_KEY } }));
	expect(tool.name).toBe('Generate_Media');
	// The node's own Description field for the tool variant, not n8n's "<action> in Media Generation".
	expect(tool.description).toMatch(/^Makes an image, video or song from a text prompt .* costs credits/);
	expect(tool.description).toMatch(/still going .* runId/);
	const shape = (tool.schema as { shape: Record<string, { isOptional(): boolean }> }).shape;
	expect(Object.keys(shape).sort()).toEqual(['prompt', 'requestKey']);
	expect(shape.prompt.isOptional()).toBe(false);
	expect(shape.requestKey.isOptional()).toBe(true);
});

test('MCP-like calls without a key: each call is a new run, charged once, with a key of its own', async () => {
	const spent = backend.charges();
	const posts = submissions().length;
	const answers = [];
	for (const prompt of ['a red kite', 'a blue boat', 'a red kite'])
		answers.push(parsed(await mcpCall(generateTool(), { prompt })));
	const runIds = answers.map((a) => a[0].runId);
	expect(new Set(runIds).size).toBe(3);
	expect(backend.charges() - spent).toBe(15);
	const keys = keysSince(posts);
	expect(new Set(keys).size).toBe(3);
	for (const key of keys) expect(key).toMatch(/^n8n-[^-]*-tool-[0-9a-f-]{36}$/);
});

test('a key passed by the caller brings its run back without a new charge', async () => {
	const setup = generateTool({ additionalFields: { requestKey: FROM_AI_KEY } });
	const first = parsed(await mcpCall(setup, { prompt: 'a green lamp', requestKey: 'order-17' }))[0];
	const spent = backend.charges();
	const again = parsed(await mcpCall(setup, { prompt: 'a green lamp', requestKey: 'order-17' }))[0];
	expect(again.runId).toBe(first.runId);
	expect(backend.charges() - spent).toBe(0);
	const fresh = parsed(await mcpCall(setup, { prompt: 'a green lamp' }))[0];
	expect(fresh.runId).not.toBe(first.runId);
	expect(backend.charges() - spent).toBe(5);
});

test('two calls inside one agent execution make two runs', async () => {
	const spent = backend.charges();
	const answers = await agentCalls(generateTool(), [{ prompt: 'a quiet street' }, { prompt: 'a quiet street' }]);
	const runIds = answers.map((a) => parsed(a)[0].runId);
	expect(runIds[0]).not.toBe(runIds[1]);
	expect(backend.charges() - spent).toBe(10);
});

test('a compact answer: run, status, kind, model, cost, credits left, file URL and type; no download', async () => {
	const downloads = backend.requests('GET /files').length;
	const [answer] = parsed(await mcpCall(generateTool(), { prompt: 'a yellow chair' }));
	expect(Object.keys(answer).sort()).toEqual(
		['cost', 'creditsLeft', 'kind', 'model', 'outputs', 'requestKey', 'runId', 'status'].sort(),
	);
	expect(answer).toMatchObject({ status: 'SUCCEEDED', kind: 'image', model: 'studio-image-v1', cost: 5 });
	expect(answer.creditsLeft).toBe(backend.sandbox.engine.accounts.get(backend.account.id)?.credits);
	const outputs = answer.outputs as IDataObject[];
	expect(outputs.length).toBeGreaterThan(0);
	for (const output of outputs) {
		expect(Object.keys(output).sort()).toEqual(['mime', 'url']);
		expect(String(output.url)).toMatch(/^http/);
	}
	expect(backend.requests('GET /files').length).toBe(downloads);
});

test('a normal execution keeps its key: instance, execution, node, loop pass and item', async () => {
	const posts = submissions().length;
	const r = await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			prompt: 'a plain run',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			downloadOutputs: false,
		},
		credentials: backend.apiCredentials,
	});
	expect(r.error).toBeUndefined();
	expect(keysSince(posts)).toEqual([
		expect.stringMatching(new RegExp(`^n8n-[^-]*-${r.executionId}-node-mediagen-1-0-1$`)),
	]);
});

test('a prompt over the limit: an answer (not an error) naming the limit, nothing sent or charged', async () => {
	const spent = backend.charges();
	const posts = submissions().length;
	const answer = await mcpCall(generateTool(), { prompt: 'x'.repeat(2001) });
	expect(refusal(answer)).toMatch(/^Prompt is 2001 characters long; .* takes at most 2000\.\n.*nothing was charged/);
	expect(submissions().length).toBe(posts);
	expect(backend.charges()).toBe(spent);
});

test("a value outside the model's list: the error gives the allowed values, nothing sent", async () => {
	const aspect = "={{ $fromAI('aspect', 'Picture shape', 'string', '1:1') }}";
	const setup = generateTool({ modelOptions: { mappingMode: 'defineBelow', value: { aspect } } });
	const posts = submissions().length;
	const answer = await mcpCall(setup, { prompt: 'a wide field', aspect: '5:1' });
	expect(refusal(answer)).toMatch(/^Aspect Ratio \(aspect\) "5:1" is not allowed for Studio Image\. Allowed values: /);
	expect(refusal(answer)).toContain('16:9');
	expect(submissions().length).toBe(posts);
	const [ok] = parsed(await mcpCall(setup, { prompt: 'a wide field', aspect: '16:9' }));
	expect(ok.status).toBe('SUCCEEDED');
	expect(backend.sandbox.engine.runs.get(String(ok.runId))?.options.aspect).toBe('16:9');
});

test('a model the free tier does not cover: the error names the models it does', async () => {
	const setup: ToolSetup = {
		...generateTool({
			authentication: 'anonymous',
			kind: 'video',
			model: { __rl: true, mode: 'id', value: 'studio-video-v1' },
		}),
		credentials: backend.anonCredentials(),
	};
	const posts = submissions().length;
	const answer = await mcpCall(setup, { prompt: 'a cat' });
	expect(answer).toMatch(
		/not covered by the anonymous free tier, which covers only the free house image engine \(studio-image-v1\)/,
	);
	expect(submissions().length).toBe(posts);
});

test('pause mode is hidden on the tool: n8n drops a saved Waiting = Pause there, and the call polls', async () => {
	// The refusal behind it (nodes/MediaGen/run/runSettings.ts) is checked in
	// test/unit/nodes/MediaGen/run/runSettings.test.ts.
	const spent = backend.charges();
	const posts = submissions().length;
	const [answer] = parsed(await mcpCall(generateTool({ waitMode: 'pause' }), { prompt: 'a paused call' }));
	expect(answer.status).toBe('SUCCEEDED');
	expect(
		submissions()
			.slice(posts)
			.map((e) => (e.body as IDataObject).webhookUrl),
	).toEqual([undefined]);
	expect(backend.charges() - spent).toBe(5);
});

test("n8n's Retry On Fail keeps the call's key: a refunded failure is retried once under <key>-r2", async () => {
	const posts = submissions().length;
	const spent = backend.charges();
	const setup = generateTool({}, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
	const [answer] = parsed(await mcpCall(setup, { prompt: 'a bridge [fail-first]' }));
	expect(answer.status).toBe('SUCCEEDED');
	const keys = keysSince(posts);
	expect(keys).toHaveLength(3); // first try, the retry finding the failed run by key, then its -r2 run
	expect(keys[1]).toBe(keys[0]);
	expect(keys[2]).toBe(`${keys[0]}-r2`);
	expect(backend.charges() - spent).toBe(5); // the failed run was refunded
});

test('a run longer than the time limit comes back as its run ID with what to call next, not as an error', async () => {
	const spent = backend.charges();
	const setup = generateTool({ waiting: { timeoutMinutes: 0.02, pollIntervalSeconds: 1 } });
	const [answer] = parsed(await mcpCall(setup, { prompt: 'a long one [stuck]' }));
	expect(answer.runId).toMatch(/^gen_/);
	expect(answer.status).toMatch(/PENDING|PROCESSING/);
	expect(String(answer.note)).toMatch(/Call the Generation Wait or Get tool with this runId/);
	expect(backend.charges() - spent).toBe(5);
});

test('Max Credits per Execution in MCP calls: with no execution, the calls of a tool node share the cap', async () => {
	const setup = generateTool({ additionalFields: { maxCredits: 5 } }, { id: 'node-mediagen-tool-capped' });
	const [first] = parsed(await mcpCall(setup, { prompt: 'a capped picture' }));
	expect(first.status).toBe('SUCCEEDED');
	const posts = submissions().length;
	const second = await mcpCall(setup, { prompt: 'another capped picture' });
	expect(refusal(second)).toMatch(/^Max Credits per Execution is 5: this run would cost 5 credits .*\(5 already spent/);
	expect(submissions().length).toBe(posts);
});

test('a model ID the agent guessed wrong: the answer lists the catalogue IDs with their prices, nothing sent', async () => {
	const setup = generateTool({
		model: { __rl: true, mode: 'id', value: "={{ $fromAI('model', 'A model ID', 'string') }}" },
	});
	const posts = submissions().length;
	const spent = backend.charges();
	const answer = await mcpCall(setup, { prompt: 'a cat', model: 'dall-e-3' });
	expect(refusal(answer)).toMatch(/^Model: "dall-e-3" is not in the model catalogue\n/);
	expect(refusal(answer)).toMatch(
		/image model IDs \(price at their default options\): studio-image-v1 \(5 credits\), /,
	);
	expect(answer).not.toMatch(/studio-video-v1/);
	expect(submissions().length).toBe(posts);
	expect(backend.charges()).toBe(spent);
	const [run] = parsed(await mcpCall(setup, { prompt: 'a cat', model: 'studio-image-v1' }));
	expect(run).toMatchObject({ status: 'SUCCEEDED', model: 'studio-image-v1' });
});
