/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (MEDIAGEN_N8N_VERSION) with the packed package: the example workflow 07 (an MCP Server Trigger with
// our Generate, Wait and Get tools) imported and activated, driven by an MCP client (@modelcontextprotocol/sdk)
// over Streamable HTTP and over SSE. Checked against the sandbox's ledger: the tool list, three calls making
// three runs each charged once, a repeated call making a new run unless the caller passes a key, a prompt over
// the limit refused with a readable error and no charge, and a second MCP session making its own runs.
// Prints what the client saw (ARCHITECTURE.md, AI tools, quotes it).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import {
	activateWorkflow,
	importCredentials,
	importWorkflow,
	localiseWorkflow,
	prepareN8n,
	readExample,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import { runCharges, spentBy } from '../helpers/ledger';
import { sandboxKeyCredential, untilRegistered } from './shared';

const WORKFLOW_ID = 'mgExample0000007';
const TOOLS = ['Generate_Media', 'Wait_for_Run', 'Get_Run'];
let sb: Sandbox;
let n8n: N8nInstance;
let ownerId = '';
let mcpUrl: URL;
const transcript: string[] = [];
/** The runs of the first three calls, made in the Streamable HTTP session. */
const firstRuns: string[] = [];

interface ToolAnswer {
	isError: boolean;
	text: string;
	json?: Array<Record<string, unknown>>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
	const result = (await client.callTool({ name, arguments: args })) as {
		isError?: boolean;
		content: Array<{ type: string; text?: string }>;
	};
	const text = result.content.map((c) => c.text ?? '').join('\n');
	transcript.push(`→ tools/call ${name} ${JSON.stringify(args).slice(0, 120)}`);
	transcript.push(`← ${result.isError ? 'isError: true, ' : ''}${text}`);
	let json: ToolAnswer['json'];
	try {
		json = JSON.parse(text) as ToolAnswer['json'];
	} catch {
		json = undefined;
	}
	return { isError: Boolean(result.isError), text, json };
}

async function connect(kind: 'streamable' | 'sse'): Promise<Client> {
	const client = new Client({ name: `mediagen-e2e-${kind}`, version: '1.0.0' });
	const transport = kind === 'sse' ? new SSEClientTransport(mcpUrl) : new StreamableHTTPClientTransport(mcpUrl);
	await client.connect(transport);
	return client;
}

/** Charge lines per run in the sandbox's ledger (refunds aside). */
const spent = () => spentBy(sb, ownerId);
const mcpReady = () => untilRegistered(n8n, mcpUrl, 'The MCP Server Trigger');

beforeAll(async () => {
	sb = await startSandbox({ durations: { pendingMs: 200, image: 1500, video: 2500, music: 2000 } });
	const account = sb.engine.createAccount({ credits: 1000, concurrency: 3 });
	ownerId = account.id;
	n8n = await prepareN8n();
	await importCredentials(n8n, [sandboxKeyCredential(sb, account)]);
	const example = readExample('07-mcp-server-tools.json');
	await importWorkflow(n8n, localiseWorkflow(example, sb.rootUrl, n8n.outputDir, WORKFLOW_ID));
	await activateWorkflow(n8n, WORKFLOW_ID);
	await startServer(n8n);
	mcpUrl = new URL(`http://127.0.0.1:${n8n.port}/mcp/mediagen`);
	await mcpReady();
});

afterAll(async () => {
	process.stdout.write(`MCP transcript on n8n ${n8n?.version}:\n${transcript.join('\n')}\n`);
	if (n8n) await stopServer(n8n);
	if (sb) await sb.close();
});

describe('Streamable HTTP', () => {
	let client: Client;

	beforeAll(async () => {
		client = await connect('streamable');
	});

	afterAll(async () => {
		await client?.close();
	});

	test('the tool list shows our tools with descriptions and input schemas', async () => {
		const { tools } = await client.listTools();
		transcript.push('→ tools/list', `← ${JSON.stringify(tools)}`);
		expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
		const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
		expect(byName.Generate_Media.description).toMatch(
			/^Makes an image, video or song from a text prompt .* costs credits/,
		);
		expect(byName.Wait_for_Run.description).toMatch(/^Waits for a Media Generation run started earlier/);
		const schema = byName.Generate_Media.inputSchema as {
			properties: Record<string, { type: string; description?: string }>;
			required?: string[];
		};
		expect(Object.keys(schema.properties).sort()).toEqual(['aspect', 'prompt', 'requestKey']);
		expect(schema.properties.prompt.description).toMatch(/at most 2000 characters/);
		expect(schema.properties.aspect.description).toMatch(/1:1, 16:9, 9:16, 4:3, 3:4/);
		expect(schema.required ?? []).toContain('prompt');
		expect(schema.required ?? []).not.toContain('requestKey');
		expect(Object.keys((byName.Get_Run.inputSchema as { properties: object }).properties)).toEqual(['runId']);
	});

	test('three calls, three prompts: three runs, each charged once, each answer naming its run and URL', async () => {
		const before = spent();
		for (const prompt of ['a red kite over a beach', 'a blue boat at night', 'a lamp in a window']) {
			const answer = await call(client, 'Generate_Media', { prompt });
			expect(answer.isError).toBe(false);
			const [run] = answer.json!;
			expect(run).toMatchObject({ status: 'SUCCEEDED', kind: 'image', model: 'studio-image-v1', cost: 5 });
			expect(String((run.outputs as Array<{ url: string }>)[0].url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
			expect(typeof run.creditsLeft).toBe('number');
			firstRuns.push(String(run.runId));
		}
		expect(new Set(firstRuns).size).toBe(3);
		for (const id of firstRuns) expect(runCharges(sb, id)).toEqual([5]);
		expect(spent() - before).toBe(15);
	});

	test('a repeated call makes a new run; with a key the caller passes, the run comes back uncharged', async () => {
		const before = spent();
		const again = await call(client, 'Generate_Media', { prompt: 'a red kite over a beach' });
		const againId = String(again.json![0].runId);
		expect(firstRuns).not.toContain(againId);
		expect(runCharges(sb, againId)).toEqual([5]);
		const keyed = await call(client, 'Generate_Media', { prompt: 'a green door', requestKey: 'order-1001' });
		const repeat = await call(client, 'Generate_Media', { prompt: 'a green door', requestKey: 'order-1001' });
		expect(repeat.json![0].runId).toBe(keyed.json![0].runId);
		expect(runCharges(sb, String(keyed.json![0].runId))).toEqual([5]);
		expect(spent() - before).toBe(10);
	});

	test('a prompt over the limit: an answer the agent can read, nothing charged', async () => {
		const before = spent();
		const runs = sb.engine.runs.size;
		const answer = await call(client, 'Generate_Media', { prompt: 'x'.repeat(2001) });
		// Refused before sending: an answer the agent reads, as n8n's own tools answer their errors.
		expect(answer.isError).toBe(false);
		expect(answer.json![0].nothingCharged).toBe(true);
		expect(String(answer.json![0].error)).toMatch(/^Prompt is 2001 characters long; Studio Image takes at most 2000\./);
		expect(String(answer.json![0].error)).toMatch(/nothing was charged/);
		expect(sb.engine.runs.size).toBe(runs);
		expect(spent()).toBe(before);
	});

	test('Wait and Get take a run ID and answer with its files, free', async () => {
		const before = spent();
		const waited = await call(client, 'Wait_for_Run', { runId: firstRuns[0] });
		expect(waited.json![0]).toMatchObject({ runId: firstRuns[0], status: 'SUCCEEDED' });
		const got = await call(client, 'Get_Run', { runId: firstRuns[1] });
		expect(got.json![0]).toMatchObject({ runId: firstRuns[1], status: 'SUCCEEDED' });
		expect(spent()).toBe(before);
	});
});

test('SSE: a second MCP session lists the same tools and its calls make their own runs', async () => {
	const client = await connect('sse');
	try {
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
		const before = spent();
		const ids: string[] = [];
		for (const prompt of ['a red kite over a beach', 'a red kite over a beach']) {
			const answer = await call(client, 'Generate_Media', { prompt, aspect: '16:9' });
			expect(answer.isError).toBe(false);
			ids.push(String(answer.json![0].runId));
		}
		expect(new Set(ids).size).toBe(2);
		// The first session made a run of the same prompt: this session's calls are runs of their own.
		for (const id of ids) expect(firstRuns).not.toContain(id);
		for (const id of ids) expect(runCharges(sb, id)).toEqual([5]);
		expect(spent() - before).toBe(10);
		expect(sb.engine.runs.get(ids[0])?.options.aspect).toBe('16:9');
	} finally {
		await client.close();
	}
});
