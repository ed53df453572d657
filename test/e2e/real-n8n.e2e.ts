/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (MEDIAGEN_N8N_VERSION: 2.40.7 on Node 24, 1.123.x on Node 20) with the package installed
// from its `npm pack` tarball as a community package: the example workflows run headlessly, the
// trigger workflow receives signed deliveries from the sandbox on n8n's production webhook URL,
// forged and replayed deliveries start nothing, and n8n lists our node types (with the AI tool
// variant it derives from `usableAsTool`) and credential types.
import { readFileSync } from 'node:fs';

import type { Sandbox } from '../../sandbox/server';
import { newWebhookSecret } from '../../sandbox/webhooks';
import {
	activateWorkflow,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	ownerSession,
	rest,
	startServer,
	stopServer,
	TYPE_PREFIX,
	type N8nInstance,
	type RunData,
} from '../../scripts/realN8n';
import { bootStack, exampleId } from '../../scripts/stack';
import { postSigned } from '../helpers/signing';
import { deliveryOf } from '../helpers/world';
import { manualStart, SANDBOX_KEY, untilMarkerRan, untilN8n, untilRegistered } from './shared';

let sb: Sandbox;
let n8n: N8nInstance;
let apiKey: string;
let endpointSecret: string;
const runs: Record<string, RunData> = {};
let cookie = '';
let hookUrl = '';
/** Executions of the trigger workflow started by the example runs' own deliveries (see beforeAll). */
let exampleDeliveries = 0;
const idOf = exampleId;
const CORE_ID = 'mgStrictCore0001';

/** A MediaGen node of the core workflow: an image run on the free house engine unless `parameters` say otherwise. */
function mediaGenStep(
	name: string,
	y: number,
	parameters: Record<string, unknown>,
	credentials: Record<string, unknown>,
) {
	return {
		id: `core-${name.toLowerCase().replace(/\W+/g, '-')}`,
		name,
		type: `${TYPE_PREFIX}mediaGen`,
		typeVersion: 1,
		position: [240, y],
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			...parameters,
		},
		credentials,
		onError: 'continueRegularOutput',
	};
}

/**
 * The core cases beside the examples, in one workflow (each n8n CLI call boots n8n): Generate without waiting,
 * then Wait and Get on its run; a credential whose Base URL is plain http to a public host; an anonymous
 * credential saved under the field's earlier name. Each branch keeps going on error, so each is checked alone.
 */
function coreWorkflow() {
	const key = SANDBOX_KEY;
	const connect = (node: string) => [{ node, type: 'main', index: 0 }];
	return {
		id: CORE_ID,
		name: 'Media Generation: core cases',
		nodes: [
			manualStart('core-start'),
			mediaGenStep('Start Run', 0, { prompt: 'a quiet harbour at noon', waitForCompletion: false }, key),
			{
				...mediaGenStep(
					'Wait Run',
					0,
					{ operation: 'wait', runId: '={{ $json.id }}', waiting: { pollIntervalSeconds: 1 } },
					key,
				),
				position: [480, 0],
			},
			{ ...mediaGenStep('Get Run', 0, { operation: 'get', runId: '={{ $json.id }}' }, key), position: [720, 0] },
			mediaGenStep(
				'Plain HTTP',
				200,
				{ prompt: 'never sent' },
				{ mediaGenApi: { id: 'mediagenPlainHttp', name: 'Plain http' } },
			),
			mediaGenStep(
				'Earlier Field Name',
				400,
				{ authentication: 'anonymous', prompt: 'a credential from an earlier build' },
				{ mediaGenAnonymousApi: { id: 'mediagenOldAnonField', name: 'Anonymous, earlier field name' } },
			),
		],
		connections: {
			Start: { main: [[...connect('Start Run'), ...connect('Plain HTTP'), ...connect('Earlier Field Name')]] },
			'Start Run': { main: [connect('Wait Run')] },
			'Wait Run': { main: [connect('Get Run')] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function items(run: RunData, node: string) {
	const task = run.resultData.runData[node]?.[0];
	if (!task?.data)
		throw new Error(
			`No output from "${node}": ${JSON.stringify(task?.error ?? run.resultData.error ?? Object.keys(run.resultData.runData))}`,
		);
	return task.data.main[0];
}

async function executionsOf(workflowId: string): Promise<Array<{ id: string; status: string }>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const res = await rest<{ data: { results: Array<{ id: string; status: string }> } }>(
		n8n,
		cookie,
		`/rest/executions?filter=${filter}&limit=50`,
	);
	return res.data.results;
}

/** The executions of `workflowId` once there are at least `count`. */
async function waitForExecutions(workflowId: string, count: number, ms = 60_000) {
	return await untilN8n(
		async () => {
			const list = await executionsOf(workflowId);
			return list.length >= count && list;
		},
		`${count} executions of ${workflowId}`,
		ms,
	);
}

/** The trigger workflow's executions once a marker sent after the test's deliveries has run (markers left out). */
const settledTriggerExecutions = async () =>
	(await untilMarkerRan(n8n, cookie, idOf(6), hookUrl, endpointSecret)).executions;

beforeAll(async () => {
	const stack = await bootStack();
	({ sandbox: sb, n8n, apiKey, webhookSecret: endpointSecret, hookUrl } = stack);
	for (let i = 1; i <= 5; i++) runs[idOf(i)] = await executeWorkflow(n8n, idOf(i));
	await importCredentials(n8n, [
		{
			id: 'mediagenPlainHttp',
			name: 'Plain http',
			type: 'mediaGenApi',
			data: { baseUrl: 'http://api.example.com/v1', apiKey },
		},
		{
			id: 'mediagenOldAnonField',
			name: 'Anonymous, earlier field name',
			type: 'mediaGenAnonymousApi',
			data: { baseUrl: sb.baseUrl, anonymousId: 'saved-by-an-earlier-build' },
		},
	]);
	await importWorkflow(n8n, coreWorkflow());
	runs[CORE_ID] = await executeWorkflow(n8n, CORE_ID);
	// The example runs' deliveries found no server yet; their retries (60 s later) would start executions
	// during the trigger tests below, which count the executions of the runs they start themselves.
	sb.engine.webhooks.stop();
	await activateWorkflow(n8n, idOf(6));
	await startServer(n8n);
	cookie = await ownerSession(n8n);
	// The example runs were delivered to the trigger while n8n was not serving; the sandbox retries them
	// a minute later, in the middle of the trigger tests. Resend them now and count what they start.
	// (n8n 2.40 registers the webhook shortly after its banner: wait for that, then resend each one again once its
	// last resend is answered, until all are delivered.)
	const pending = sb.engine.webhooks.deliveries.filter((d) => !d.delivered);
	await untilRegistered(n8n, hookUrl, "The trigger's webhook");
	const resendAt = new Map(pending.map((d) => [d.id, d.attempts.length])); // once it has that many attempts
	await untilN8n(
		() => {
			for (const d of pending.filter((x) => !x.delivered && x.attempts.length >= resendAt.get(x.id)!)) {
				resendAt.set(d.id, d.attempts.length + 1);
				sb.engine.webhooks.resend(d.id);
			}
			return pending.every((d) => d.delivered);
		},
		"the example runs' deliveries",
		90_000,
	);
	exampleDeliveries = (await waitForExecutions(idOf(6), pending.length)).length;
});

afterAll(async () => {
	if (n8n) await stopServer(n8n);
	if (sb) await sb.close();
});

describe('(d) n8n loads the package installed from its tarball', () => {
	test('our node types, the derived tool variant and our credential types are listed', async () => {
		const nodes = await rest<Array<{ name: string; outputs?: unknown }>>(n8n, cookie, '/types/nodes.json');
		const names = nodes.map((n) => n.name);
		expect(names).toEqual(
			expect.arrayContaining([`${TYPE_PREFIX}mediaGen`, `${TYPE_PREFIX}mediaGenTrigger`, `${TYPE_PREFIX}mediaGenTool`]),
		);
		expect(names.filter((n) => n.startsWith('CUSTOM.'))).toEqual([]);
		expect(JSON.stringify(nodes.find((n) => n.name === `${TYPE_PREFIX}mediaGenTool`)?.outputs)).toContain('ai_tool');
		const creds = await rest<Array<{ name: string }>>(n8n, cookie, '/types/credentials.json');
		expect(creds.map((c) => c.name)).toEqual(
			expect.arrayContaining(['mediaGenApi', 'mediaGenAnonymousApi', 'mediaGenWebhookApi']),
		);
	});
});

describe('(d) n8n renders our catalogue-driven fields', () => {
	const request = (endpoint: string, methodName: string, model: string) =>
		rest<{ data: unknown }>(n8n, cookie, `/rest/dynamic-node-parameters/${endpoint}`, {
			method: 'POST',
			body: JSON.stringify({
				path: endpoint === 'resource-locator-results' ? 'parameters.model' : 'parameters.modelOptions',
				nodeTypeAndVersion: { name: `${TYPE_PREFIX}mediaGen`, version: 1 },
				currentNodeParameters: {
					authentication: 'apiKey',
					resource: 'generation',
					operation: 'generate',
					kind: 'video',
					model: { __rl: true, mode: 'list', value: model },
				},
				methodName,
				credentials: SANDBOX_KEY,
			}),
		});

	test("the model dropdown lists the catalogue's video models with their prices", async () => {
		const { data } = (await request('resource-locator-results', 'searchModels', '')) as {
			data: { results: Array<{ name: string; value: string }> };
		};
		expect(data.results).toHaveLength(15);
		expect(data.results.map((r) => r.value)).toContain('lumora-motion-3');
		expect(data.results.find((r) => r.value === 'studio-video-v1')?.name).toBe(
			'Video · Studio Video (Studio) · 20 credits, free tier',
		);
	});

	test('the options mapper offers only what the chosen model accepts, with its defaults', async () => {
		const { data } = (await request('resource-mapper-fields', 'getModelOptionFields', 'lumora-motion-3')) as {
			data: { fields: Array<{ id: string; displayName: string }> };
		};
		expect(data.fields.map((f) => f.id)).toEqual(['resolution', 'aspect', 'duration', 'audio']);
		expect(data.fields[0].displayName).toBe('Resolution (default: 1080p)');
	});
});

describe('(a) example workflows run headlessly', () => {
	test('generate an image and pass the file on: the file is written to disk', () => {
		const [saved] = items(runs[idOf(1)], 'Save File');
		expect(saved.json.status).toBe('SUCCEEDED');
		expect(saved.binary?.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		const bytes = readFileSync(String(saved.json.fileName));
		expect(bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))).toBe(true);
	});

	test('a batch of prompts into images', () => {
		const out = items(runs[idOf(2)], 'Generate Images');
		expect(out.map((i) => i.json.prompt)).toEqual([
			'a red fox in snow',
			'a paper boat on a lake',
			'a neon city at night',
			'a bowl of ramen, top view',
		]);
		for (const i of out) expect(i.binary?.data.mimeType).toBe('image/png');
	});

	test('image-to-video from an uploaded photo', () => {
		const [uploaded] = items(runs[idOf(3)], 'Upload Photo');
		expect(uploaded.json).toMatchObject({ mime: 'image/png', url: expect.stringContaining('/files/uploads/') });
		const [video] = items(runs[idOf(3)], 'Generate Video');
		expect(video.json.status).toBe('SUCCEEDED');
		expect(video.binary?.data.mimeType).toBe('video/mp4');
		const sent = sb.engine.log
			.filter((e) => e.method === 'POST' && e.path === '/v1/generations')
			.map((e) => e.body as { kind?: string; imageUrls?: string[] });
		expect(sent.find((b) => b.kind === 'video')?.imageUrls).toEqual([uploaded.json.url]);
	});

	test('a song in Lyrics mode: two takes with covers', () => {
		const [song] = items(runs[idOf(4)], 'Generate Song');
		expect(song.json.options).toMatchObject({ tier: 'Lyrics', title: 'Harbour Morning', vocal: 'f' });
		expect(song.binary?.data.mimeType).toBe('audio/mpeg');
		expect(song.binary?.data_1.mimeType).toBe('audio/mpeg');
		expect(song.binary?.cover.mimeType).toBe('image/png');
	});

	test('an app look', () => {
		const [look] = items(runs[idOf(5)], 'Royal Pet Portrait');
		expect(look.json).toMatchObject({
			status: 'SUCCEEDED',
			app: 'pet-portrait',
			look: 'royal',
			model: 'studio-image-v1',
		});
		expect(look.binary?.data.mimeType).toBe('image/png');
	});

	test('the executions are stored by n8n', async () => {
		for (let i = 1; i <= 5; i++) {
			const list = await executionsOf(idOf(i));
			expect(list.length).toBeGreaterThanOrEqual(1);
			expect(list[0].status).toBe('success');
		}
	});
});

describe('(a) core cases: a run started, waited for and read; credentials refused or read as saved', () => {
	test('the sandbox runs in the mode SANDBOX_STRICT asks for', () => {
		expect(sb.config.strict).toBe(process.env.SANDBOX_STRICT === '1');
	});

	test('Generate without waiting, then Wait and Get: the run ends SUCCEEDED with its file', () => {
		const [started] = items(runs[CORE_ID], 'Start Run');
		expect(started.json.status).toMatch(sb.config.strict ? /^(QUEUED|PENDING)$/ : /^(PENDING|PROCESSING)$/);
		const [waited] = items(runs[CORE_ID], 'Wait Run');
		expect(waited.json).toMatchObject({ id: started.json.id, status: 'SUCCEEDED' });
		const [got] = items(runs[CORE_ID], 'Get Run');
		expect(got.json).toMatchObject({ id: started.json.id, status: 'SUCCEEDED' });
		expect(got.binary?.data.mimeType).toBe('image/png');
	});

	test('an http:// Base URL on a public host is refused before any request, saying why', () => {
		// The step keeps going on error: n8n passes its input on and keeps the error with the step's run.
		const task = runs[CORE_ID].resultData.runData['Plain HTTP']?.[0];
		expect(task?.error?.message).toBe(
			'The Base URL starts with http://, which would send your API key or anonymous ID unencrypted over the ' +
				'network to api.example.com. Use https:// (for example https://api.example.com/v1). Plain http:// is ' +
				'accepted only for a test service on this computer (localhost, 127.0.0.1 or [::1]).',
		);
		expect(JSON.stringify(task)).not.toContain(apiKey);
		const sent = sb.engine.log.filter((e) => (e.body as { prompt?: string } | undefined)?.prompt === 'never sent');
		expect(sent).toEqual([]);
	});

	test('an anonymous credential saved under the earlier field name (anonymousId) still generates', () => {
		const [made] = items(runs[CORE_ID], 'Earlier Field Name');
		expect(made.json).toMatchObject({ status: 'SUCCEEDED', cost: 5 });
		expect(sb.engine.wallets.get('saved-by-an-earlier-build')?.credits).toBe(0);
	});
});

describe("(b, c) the trigger workflow on n8n's production webhook URL", () => {
	const submit = (prompt: string) =>
		fetch(`${sb.baseUrl}/generations`, {
			method: 'POST',
			headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', prompt, options: { resolution: '1K' } }),
		}).then(async (r) => ((await r.json()) as { generation: { id: string } }).generation);

	test('exactly one execution per finished run, with the run data, even when a delivery is resent', async () => {
		const ok = await submit('trigger me');
		const bad = await submit('trigger me too [fail]');
		const list = await waitForExecutions(idOf(6), exampleDeliveries + 2);
		expect(list).toHaveLength(exampleDeliveries + 2);
		const delivery = deliveryOf(sb, ok.id)!;
		expect(delivery.delivered).toBe(true);
		const attempts = delivery.attempts.length;
		sb.engine.webhooks.resend(delivery.id);
		await untilN8n(() => delivery.attempts.length > attempts, 'the resend to be answered');
		expect(await settledTriggerExecutions()).toHaveLength(exampleDeliveries + 2);
		const details = await Promise.all(
			list.map((e) => rest<{ data: { data: string } }>(n8n, cookie, `/rest/executions/${e.id}`)),
		);
		const text = details.map((d) => JSON.stringify(d)).join(' ');
		expect(text).toContain(ok.id);
		expect(text).toContain(bad.id);
		expect(text).toContain(`msg_${bad.id}_failed`);
	});

	test('forged and replayed deliveries record no execution', async () => {
		const known = new Set((await executionsOf(idOf(6))).map((e) => e.id));
		const accepted = sb.engine.webhooks.deliveries.find((d) => d.delivered && d.runId)!;
		const forged = await postSigned(hookUrl, newWebhookSecret(), 'msg_forged_succeeded', accepted.body);
		expect(forged.status).toBe(401);
		const replayed = await postSigned(hookUrl, endpointSecret, accepted.msgId, accepted.body);
		expect(replayed.status).toBe(200);
		expect((await settledTriggerExecutions()).filter((e) => !known.has(e.id))).toEqual([]);
	});
});
