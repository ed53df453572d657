/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Helpers for the queue-mode end-to-end tests: workflows started by a Webhook node (production
// executions, which n8n hands to its workers), reading executions back through the main process's
// REST API, and telling which worker ran an execution from the workers' logs.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import type { Run } from '../../sandbox/types';
import type { Delivery } from '../../sandbox/webhooks';
import { localiseWorkflow, ownerSession, readExample, rest, type N8nInstance } from '../../scripts/realN8n';
import { bootQueueStack, type QueueStack, type QueueStackOptions } from '../../scripts/queueStack';
import { parseFlatted, sendSigned, untilN8n } from '../e2e/shared';

export const IDS = {
	batchHook: 'mgQueueBatchHook',
	batchKeyed: 'mgQueueBatchKeys',
	batchBase: 'mgQueueBatchBase',
	lookHook: 'mgQueueLookHook1',
	lookBase: 'mgQueueLookBase1',
	trigger: 'mgQueueTrigger01',
	pauseHook: 'mgQueuePauseHook',
	dyingPause: 'mgQueueDyingPaus',
	dyingPoll: 'mgQueueDyingPoll',
};
export const HOOK_PATHS = {
	batch: 'mediagen-queue-batch',
	keyed: 'mediagen-queue-batch-keyed',
	look: 'mediagen-queue-look',
	pause: 'mediagen-queue-pause',
	dyingPause: 'mediagen-queue-dying-pause',
	dyingPoll: 'mediagen-queue-dying-poll',
};
/** The keyed batch's Request Key: the caller's batch id (POSTed to its webhook) and the item's position. */
export const KEYED_REQUEST_KEY = "={{ $('Webhook').first().json.body.batchId + '-' + $itemIndex }}";
export const NINE_PROMPTS = [
	'a red fox in snow',
	'a paper boat on a lake',
	'a neon city at night',
	'a bowl of ramen, top view',
	'a lighthouse at dawn',
	'a cat on a windowsill',
	'a desert road at noon',
	'a jellyfish in blue water',
	'a snowy cabin at night',
];

/**
 * The batches a process dies under (dying.e2e.ts): twenty prompts in CI; `MEDIAGEN_DYING_ITEMS` sets another size
 * (`npm run bench -- dying` runs them with 300).
 */
export const DYING_ITEMS = Number(process.env.MEDIAGEN_DYING_ITEMS || 20);
export const DYING_PROMPTS = Array.from({ length: DYING_ITEMS }, (_, i) => `${NINE_PROMPTS[i % 9]}, take ${i + 1}`);

type Workflow = Record<string, unknown> & {
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
};

/** The example with its Manual Trigger swapped for a Webhook node (POST /webhook/<path>, answered at once). */
export function withWebhookStart(workflow: Record<string, unknown>, hookPath: string): Record<string, unknown> {
	const wf = JSON.parse(JSON.stringify(workflow)) as Workflow;
	const manual = wf.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')!;
	const webhook = {
		id: `${String(manual.id).slice(0, 24)}feedfacecafe`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: manual.position,
		webhookId: `0e5c2a1f-7d3b-4c8e-9f10-${Buffer.from(hookPath).toString('hex').slice(-12).padStart(12, '0')}`,
		parameters: { httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} },
	};
	wf.nodes = wf.nodes.map((n) => (n === manual ? webhook : n));
	const renamed = Object.entries(wf.connections).map(([k, v]) => [k === manual.name ? 'Webhook' : k, v]);
	wf.connections = Object.fromEntries(renamed) as Record<string, unknown>;
	return wf;
}

/** Example 02 with nine prompts instead of four (or the prompts given). */
export function nineItemBatch(prompts = NINE_PROMPTS): Record<string, unknown> {
	const wf = readExample('02-batch-of-prompts.json') as Workflow;
	const node = wf.nodes.find((n) => n.name === 'Prompts')!;
	(node.parameters as Record<string, unknown>).jsonOutput = JSON.stringify({ prompts }, null, 2);
	return { ...wf, name: `Media Generation: ${prompts.length} prompts into images` };
}

/** A batch with a Request Key taken from the data (the batch id POSTed), so a re-run of it is the same runs. */
function keyedBatch(prompts = NINE_PROMPTS, hookPath = HOOK_PATHS.keyed): Record<string, unknown> {
	const wf = withWebhookStart(nineItemBatch(prompts), hookPath) as Workflow;
	const generate = wf.nodes.find((n) => n.name === 'Generate Images')!;
	(generate.parameters as Record<string, unknown>).additionalFields = { requestKey: KEYED_REQUEST_KEY };
	return { ...wf, name: `Media Generation: ${prompts.length} prompts into images, keyed by batch id` };
}

/** The nine-prompt batch in pause mode: the execution waits while the runs go on, and resumes on deliveries. */
export function pausedBatch(prompts = NINE_PROMPTS, hookPath = HOOK_PATHS.pause): Record<string, unknown> {
	const wf = withWebhookStart(nineItemBatch(prompts), hookPath) as Workflow;
	const generate = wf.nodes.find((n) => n.name === 'Generate Images')!;
	(generate.parameters as Record<string, unknown>).waitMode = 'pause';
	generate.credentials = {
		...(generate.credentials as Record<string, unknown>),
		mediaGenWebhookApi: { id: 'mediagenSandboxAccountSecret', name: 'Media Generation sandbox account secret' },
	};
	return { ...wf, name: `Media Generation: ${prompts.length} prompts into images, paused while they run` };
}

/** Every process that logged "Worker started execution <id>" (a paused execution is started again on resume). */
export function workersOf(stack: QueueStack, executionId: string): string[] {
	const started = `Worker started execution ${executionId} (job`;
	return [...stack.processes.keys()].flatMap((name) => {
		const file = path.join(stack.dir, `${name}.log`);
		return existsSync(file)
			? readFileSync(file, 'utf8')
					.split(started)
					.slice(1)
					.map(() => name)
			: [];
	});
}

/**
 * Boots the queue stack of a test file and signs its owner in; `figures.bootSeconds` is how long both took. A
 * stack whose owner cannot sign in is shut down before the error reaches the caller.
 */
export async function bootWithOwner(
	options: QueueStackOptions,
	figures: Record<string, unknown>,
): Promise<{ stack: QueueStack; cookie: string }> {
	const t = Date.now();
	const stack = await bootQueueStack(options);
	let cookie: string;
	try {
		cookie = await ownerSession(stack.main);
	} catch (error) {
		await stack.shutdown();
		throw error;
	}
	figures.bootSeconds = Math.round((Date.now() - t) / 1000);
	return { stack, cookie };
}

export function queueWorkflows(sandboxRoot: string, outputDir = '/tmp'): Array<Record<string, unknown>> {
	const local = (wf: Record<string, unknown>, id: string) => localiseWorkflow(wf, sandboxRoot, outputDir, id);
	const look = readExample('05-app-look.json');
	return [
		local(withWebhookStart(nineItemBatch(), HOOK_PATHS.batch), IDS.batchHook),
		local(keyedBatch(), IDS.batchKeyed),
		local(nineItemBatch(), IDS.batchBase),
		local(withWebhookStart(look, HOOK_PATHS.look), IDS.lookHook),
		local(look, IDS.lookBase),
		local(readExample('06-trigger-finished-runs.json'), IDS.trigger),
		local(pausedBatch(), IDS.pauseHook),
		local(pausedBatch(DYING_PROMPTS, HOOK_PATHS.dyingPause), IDS.dyingPause),
		local(keyedBatch(DYING_PROMPTS, HOOK_PATHS.dyingPoll), IDS.dyingPoll),
	];
}

export interface Item {
	json: Record<string, unknown>;
	binary?: Record<string, Record<string, unknown>>;
}
export interface ExecutionSummary {
	id: string;
	status: string;
	workflowId?: string;
	retryOf?: string | null;
	mode?: string;
}
export interface ExecutionDetail extends ExecutionSummary {
	runData: Record<string, Array<{ data?: { main: Item[][] }; error?: { message: string } }>>;
	error?: { message: string };
}

export async function executionsOf(n8n: N8nInstance, cookie: string, workflowId: string): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const url = `/rest/executions?filter=${filter}&limit=100`;
	const res = await rest<{ data: { results: ExecutionSummary[] } }>(n8n, cookie, url);
	return res.data.results;
}

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/** Waits until `count` executions of the workflow exist and none is running, queued or new. */
export async function settledExecutions(
	n8n: N8nInstance,
	cookie: string,
	workflowId: string,
	count: number,
	ms = 180_000,
): Promise<ExecutionSummary[]> {
	return await untilN8n(
		async () => {
			const list = await executionsOf(n8n, cookie, workflowId);
			return list.length >= count && list.every((e) => FINISHED.includes(e.status)) && list;
		},
		`${count} ended executions of ${workflowId}`,
		ms,
	);
}

export async function execution(n8n: N8nInstance, cookie: string, id: string): Promise<ExecutionDetail> {
	const res = await rest<{ data: ExecutionSummary & { data: string } }>(n8n, cookie, `/rest/executions/${id}`);
	type Stored = { resultData: { runData: ExecutionDetail['runData']; error?: { message: string } } };
	const data = parseFlatted(res.data.data) as Stored;
	return { ...res.data, runData: data.resultData.runData, error: data.resultData.error };
}

export function outputOf(detail: ExecutionDetail, node: string): Item[] {
	const task = detail.runData[node]?.[0];
	if (!task?.data) {
		const why = JSON.stringify(task?.error ?? detail.error);
		throw new Error(`No output from "${node}" in execution ${detail.id}: ${why}`);
	}
	return task.data.main[0];
}

/** Which process logged "Worker started execution <id>" (log files survive restarts). */
export function workerOf(stack: QueueStack, executionId: string): string | undefined {
	for (const name of stack.processes.keys()) {
		const file = path.join(stack.dir, `${name}.log`);
		const started = `Worker started execution ${executionId} (job`;
		if (existsSync(file) && readFileSync(file, 'utf8').includes(started)) return name;
	}
	return undefined;
}

/** What must match between two runs of a workflow: the item's fields and values without ids, times and URLs. */
export function comparable(items: Item[]): unknown[] {
	const volatile = /^(id|created(At|Date)|updatedAt|finishedAt|startedAt|url|urls|requestKey|outputs|files|fileName)$/;
	return items.map((i) => ({
		json: Object.fromEntries(
			Object.entries(i.json)
				.filter(([k]) => !volatile.test(k))
				.sort(([a], [b]) => a.localeCompare(b)),
		),
		jsonKeys: Object.keys(i.json).sort(),
		binary: Object.fromEntries(
			// the sandbox draws a different picture for every run, so sizes differ
			Object.entries(i.binary ?? {}).map(([k, b]) => [k, { mimeType: b.mimeType, fileExtension: b.fileExtension }]),
		),
	}));
}

/** Posts a delivery again to `url`, signed now with `secret`, with its original webhook-id and body. */
export const replay = (delivery: Delivery, url: string, secret: string): Promise<number> =>
	sendSigned(url, secret, delivery.msgId, delivery.body);

/** Runs the node submitted under an execution (default key `n8n-<instance>-<execution>-<node>-<run>-<item>`). */
export const runsOfExecution = (sb: Sandbox, executionId: string): Run[] =>
	[...sb.engine.runs.values()].filter((r) => {
		const parts = r.requestKey?.split('-') ?? [];
		return parts[0] === 'n8n' && parts[2] === executionId;
	});
export const runsKeyed = (sb: Sandbox, prefix: string): Run[] =>
	[...sb.engine.runs.values()].filter((r) => r.requestKey?.startsWith(prefix));
/** The ledger's charge entries of `runs`. */
export const chargesOfRuns = (sb: Sandbox, runs: Run[]) => {
	const ids = new Set(runs.map((r) => r.id));
	return sb.engine.ledger.filter((l) => l.reason === 'charge' && l.runId && ids.has(l.runId));
};
/** Which items (the key's last two parts: <runIndex>-<item>) were charged among `runs`. */
export const chargedItems = (sb: Sandbox, runs: Run[]): Set<string> => {
	const charged = new Set(chargesOfRuns(sb, runs).map((l) => l.runId));
	return new Set(runs.filter((r) => charged.has(r.id)).map((r) => r.requestKey!.split('-').slice(-2).join('-')));
};
export const overlap = (a: Set<string>, b: Set<string>) => [...a].filter((x) => b.has(x)).length;

export const postHook = async (stack: QueueStack, hookPath: string, body: Record<string, unknown> = {}) =>
	(
		await fetch(`${stack.webhookBase}/webhook/${hookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		})
	).status;

/** Starts `count` executions of a webhook workflow together and returns them once they have finished. */
export async function runOnWorkers(
	stack: QueueStack,
	cookie: string,
	workflowId: string,
	hookPath: string,
	count: number,
): Promise<ExecutionSummary[]> {
	const before = new Set((await executionsOf(stack.main, cookie, workflowId)).map((e) => e.id));
	const statuses = await Promise.all(Array.from({ length: count }, async () => await postHook(stack, hookPath)));
	if (statuses.some((s) => s !== 200)) throw new Error(`webhook ${hookPath} answered ${statuses.join(', ')}`);
	const all = await settledExecutions(stack.main, cookie, workflowId, before.size + count);
	return all.filter((e) => !before.has(e.id));
}
