/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (MEDIAGEN_N8N_VERSION) with the packed package: n8n's own AI Agent, its OpenAI Chat Model pointed at
// a scripted OpenAI-compatible model on 127.0.0.1 (test/helpers/scriptedChatModel.ts), and three of our tools:
// Generate Image, Generate Video (a time limit shorter than the video) and Wait for Run. The script calls them
// in turn; the test reads what the agent sent the model (the tool list: names, descriptions, parameters; the
// tool results) and checks the sandbox's ledger: one run per Generate call, each charged once, the video given
// back as "still running" with its run ID, and the Wait call with that ID returning its file. A fourth tool
// leaves Model to the agent through the list's "Let the AI Agent Choose" entry (its value as searchModels offers
// it from the sandbox's catalogue): the tool schema the agent sends lists the image model IDs with their prices; a
// wrong ID is answered with the catalogue's IDs and prices, uncharged, and the next call uses one from the schema.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import {
	executeWorkflow,
	importCredentials,
	importWorkflow,
	prepareN8n,
	type N8nInstance,
	type RunData,
} from '../../scripts/realN8n';
import {
	startScriptedChatModel,
	toolResults,
	type ChatRequest,
	type ChatTool,
	type ScriptedChatModel,
	type ScriptedTurn,
} from '../helpers/scriptedChatModel';
import { runCharges, spentBy } from '../helpers/ledger';
import { loadOptionsContext } from '../helpers/engine';
import { TOOL_TYPE } from '../helpers/toolHost';
import { searchModels } from '../../nodes/MediaGen/methods';
import { manualStart, SANDBOX_KEY, sandboxKeyCredential } from './shared';

const WORKFLOW_ID = 'mgAiAgentTools01';
const TOOL = 'n8n-nodes-mediagen.mediaGenTool';

let sb: Sandbox;
let n8n: N8nInstance;
let model: ScriptedChatModel;
let ownerId = '';
let run: RunData;
/** The Model value of the list's "Let the AI Agent Choose" entry for images. */
let agentChoice = '';

/** The result of a tool call as the agent passed it back: our JSON answer (one run). */
function answerOf(text: string): Record<string, unknown> {
	const parsed = JSON.parse(text) as unknown;
	const first = Array.isArray(parsed) ? parsed[0] : parsed;
	return (typeof first === 'string' ? JSON.parse(first) : first) as Record<string, unknown>;
}

/** What the tool list the agent sends says of one tool's parameter. */
function parameterOf(request: ChatRequest, tool: string, name: string): { type: string; description?: string } {
	const found = (request.tools ?? []).find((t: ChatTool) => t.function.name === tool);
	const params = found?.function.parameters as { properties: Record<string, { type: string; description?: string }> };
	return params.properties[name];
}

/**
 * The agent's turns: an image; a video longer than its tool's time limit; Wait with the video's run ID; then a
 * model ID guessed wrong on the tool whose Model the agent fills, and the first (cheapest) ID its schema lists.
 */
function script(request: ChatRequest): ScriptedTurn {
	const results = toolResults(request);
	const last = results.at(-1);
	const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, args }] });
	if (!last) return call('Generate_Image', { prompt: 'a red kite over a beach' });
	if (last.name === 'Generate_Image') return call('Generate_Video', { prompt: 'waves rolling in, slowly' });
	if (last.name === 'Generate_Video') return call('Wait_for_Run', { runId: String(answerOf(last.text).runId) });
	if (last.name === 'Wait_for_Run') return call('Generate_Any_Image', { prompt: 'a lighthouse', Model: 'dall-e-3' });
	const listed = /IDs, with its price at default options: ([a-z0-9-]+) \(/.exec(
		String(parameterOf(request, 'Generate_Any_Image', 'Model')?.description),
	);
	if (results.length === 4 && listed) return call('Generate_Any_Image', { prompt: 'a lighthouse', Model: listed[1] });
	return { text: 'All files are ready.' };
}

function workflow(): Record<string, unknown> {
	const tool = (name: string, y: number, parameters: Record<string, unknown>) => ({
		id: name.replace(/\s/g, '-').toLowerCase(),
		name,
		type: TOOL,
		typeVersion: 1,
		position: [400, y],
		parameters,
		credentials: SANDBOX_KEY,
	});
	const generate = (kind: string, modelId: string, waiting: Record<string, unknown>) => ({
		resource: 'generation',
		operation: 'generate',
		kind,
		model: { __rl: true, mode: 'id', value: modelId },
		prompt: `={{ $fromAI('prompt', 'What the ${kind} shows, in plain words', 'string') }}`,
		waiting: { pollIntervalSeconds: 1, ...waiting },
	});
	const nodes = [
		manualStart(),
		{
			id: 'agent',
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3,
			position: [200, 0],
			parameters: {
				promptType: 'define',
				text: 'Make a picture of a red kite and a video of the sea, and give me both links.',
				options: { maxIterations: 10 },
			},
		},
		{
			id: 'model',
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [200, 200],
			parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options: {} },
			credentials: { openAiApi: { id: 'scriptedChatModel', name: 'Scripted chat model' } },
		},
		tool('Generate Image', 200, generate('image', 'studio-image-v1', {})),
		// A time limit of 3 s for a video that takes 8 s: the call ends with the run still going.
		tool('Generate Video', 350, generate('video', 'studio-video-v1', { timeoutMinutes: 0.05 })),
		// Model left to the agent with the list's entry: the IDs and prices are in its description.
		tool('Generate Any Image', 650, {
			...generate('image', '', {}),
			model: { __rl: true, mode: 'list', value: agentChoice },
		}),
		tool('Wait for Run', 500, {
			resource: 'generation',
			operation: 'wait',
			runId: "={{ $fromAI('runId', 'The runId of a run that was still going', 'string') }}",
			waiting: { pollIntervalSeconds: 1 },
		}),
	];
	const toAgent = (type: string) => ({ [type]: [[{ node: 'AI Agent', type, index: 0 }]] });
	return {
		id: WORKFLOW_ID,
		name: 'AI Agent with Media Generation tools',
		nodes,
		connections: {
			Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': toAgent('ai_languageModel'),
			'Generate Image': toAgent('ai_tool'),
			'Generate Video': toAgent('ai_tool'),
			'Wait for Run': toAgent('ai_tool'),
			'Generate Any Image': toAgent('ai_tool'),
		},
		settings: { executionOrder: 'v1' },
	};
}

const spent = () => spentBy(sb, ownerId);

beforeAll(async () => {
	sb = await startSandbox({ durations: { pendingMs: 200, image: 1500, video: 8000, music: 2000 } });
	const account = sb.engine.createAccount({ credits: 1000, concurrency: 3 });
	ownerId = account.id;
	// The entry as the tool's Model list offers it, read from the sandbox's catalogue (GET /models).
	const credentials = { mediaGenApi: { baseUrl: sb.baseUrl, apiKey: account.keys[0] } };
	const params = { authentication: 'apiKey', resource: 'generation', operation: 'generate', kind: 'image' };
	const { results } = await searchModels.call(loadOptionsContext(params, credentials, TOOL_TYPE));
	agentChoice = String(results[0].value);
	model = await startScriptedChatModel(script);
	n8n = await prepareN8n();
	await importCredentials(n8n, [
		sandboxKeyCredential(sb, account),
		{
			id: 'scriptedChatModel',
			name: 'Scripted chat model',
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted', url: model.baseUrl },
		},
	]);
	await importWorkflow(n8n, workflow());
	run = await executeWorkflow(n8n, WORKFLOW_ID);
});

afterAll(async () => {
	// What the agent passed back to the model, call by call (ARCHITECTURE.md, AI tools, quotes it).
	const last = model?.requests.at(-1);
	const lines = last ? toolResults(last).map((r) => `${r.name} → ${r.text}`) : [];
	process.stdout.write(`AI Agent tool results on n8n ${n8n?.version}:\n${lines.join('\n')}\n`);
	if (model) await model.close();
	if (sb) await sb.close();
});

test('the agent finishes, having sent the model six requests: five tool calls and the final answer', () => {
	const agent = run.resultData.runData['AI Agent']?.[0];
	expect(agent?.error).toBeUndefined();
	expect(agent?.data?.main[0][0].json.output).toBe('All files are ready.');
	expect(model.requests).toHaveLength(6);
	expect(toolResults(model.requests[5]).map((r) => r.name)).toEqual([
		'Generate_Image',
		'Generate_Video',
		'Wait_for_Run',
		'Generate_Any_Image',
		'Generate_Any_Image',
	]);
});

test("the tool list the agent sends: our tools' names, what each does and costs, and their parameters", () => {
	const tools = Object.fromEntries((model.requests[0].tools ?? []).map((t: ChatTool) => [t.function.name, t.function]));
	expect(Object.keys(tools).sort()).toEqual(['Generate_Any_Image', 'Generate_Image', 'Generate_Video', 'Wait_for_Run']);
	for (const name of ['Generate_Image', 'Generate_Video']) {
		expect(tools[name].description).toMatch(/^Makes an image, video or song from a text prompt/);
		expect(tools[name].description).toMatch(/costs credits/);
		expect(tools[name].description).toMatch(/still going .* Wait or Get tool and that runId/);
	}
	expect(tools.Wait_for_Run.description).toMatch(/^Waits for a Media Generation run started earlier, given its runId/);
	const params = (name: string) =>
		tools[name].parameters as {
			properties: Record<string, { type: string; description?: string }>;
			required?: string[];
		};
	expect(params('Generate_Image').properties.prompt).toMatchObject({
		type: 'string',
		description: 'What the image shows, in plain words',
	});
	expect(params('Generate_Image').required).toEqual(['prompt']);
	expect(Object.keys(params('Wait_for_Run').properties)).toEqual(['runId']);
	expect(Object.keys(params('Generate_Any_Image').properties).sort()).toEqual(['Model', 'prompt']);
});

test('with Model left to the agent, the tool schema lists every image model ID of the catalogue with its price', async () => {
	const { models } = (await (await fetch(`${sb.baseUrl}/models`)).json()) as {
		models: Array<{ id: string; kind: string; credits_at_defaults: number }>;
	};
	const images = models.filter((m) => m.kind === 'image');
	const told = parameterOf(model.requests[0], 'Generate_Any_Image', 'Model');
	expect(told.type).toBe('string');
	expect(told.description).toMatch(/^The image model: one of these IDs, with its price at default options: /);
	for (const m of images) expect(told.description).toContain(`${m.id} (${m.credits_at_defaults} credits)`);
	expect(told.description).not.toMatch(/studio-video-v1|cadence-song-v1/);
});

test('the image call makes one run, charged once, and returns its file link', () => {
	const image = answerOf(toolResults(model.requests[1])[0].text);
	expect(image).toMatchObject({ status: 'SUCCEEDED', kind: 'image', model: 'studio-image-v1', cost: 5 });
	expect(String((image.outputs as Array<{ url: string }>)[0].url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
	expect(runCharges(sb, String(image.runId))).toEqual([5]);
});

test("a video longer than the tool's time limit comes back as still running with its run ID; Wait with that ID gets the file", () => {
	const results = toolResults(model.requests[3]);
	const video = answerOf(results[1].text);
	expect(video.runId).toEqual(expect.any(String));
	expect(String(video.note)).toMatch(/^Still running on the service/);
	expect(video.outputs).toBeUndefined();
	const waited = answerOf(results[2].text);
	expect(waited).toMatchObject({ runId: video.runId, status: 'SUCCEEDED', kind: 'video' });
	expect(String((waited.outputs as Array<{ url: string }>)[0].url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
	const cost = Number(waited.cost);
	expect(runCharges(sb, String(video.runId))).toEqual([cost]);
	// One video run: the Wait call started nothing.
	expect([...sb.engine.runs.values()].filter((r) => r.kind === 'video')).toHaveLength(1);
});

test('a model ID the agent guessed wrong is answered with the catalogue and its prices, uncharged; the next call uses one', () => {
	const [guess, pick] = toolResults(model.requests[5]).slice(3);
	// Refused before sending: an answer, which every agent version reads (a thrown error ends n8n 1.x's execution).
	expect(answerOf(guess.text).nothingCharged).toBe(true);
	const error = String(answerOf(guess.text).error);
	expect(error).toMatch(/^Model: "dall-e-3" is not in the model catalogue\n.*nothing was charged/);
	expect(error).toMatch(/image model IDs \(price at their default options\): studio-image-v1 \(5 credits\), /);
	const picked = answerOf(pick.text);
	expect(picked).toMatchObject({ status: 'SUCCEEDED', model: 'studio-image-v1', cost: 5 });
	// Three runs in all (image, video, the picked model's image), each charged once; the guess cost nothing.
	expect(sb.engine.runs.size).toBe(3);
	const video = answerOf(toolResults(model.requests[5])[2].text);
	expect(spent()).toBe(5 + Number(video.cost) + 5);
});
