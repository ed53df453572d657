/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the real-n8n suites (test/e2e, test/e2e-queue, test/ui) share: a fresh n8n started with credentials and
// published workflows, the sandbox API key credential as they import it, the Manual Trigger that starts a workflow,
// a trigger workflow, waiting for n8n (to register a production webhook; for a marker execution that an absence
// check waits for), and reading n8n's stored execution data (flatted).
import { randomUUID } from 'node:crypto';

import type { Sandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import {
	activateWorkflow,
	CUSTOM_PREFIX,
	importCredentials,
	importWorkflow,
	ownerSession,
	prepareN8n,
	rest,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import { postSigned, type SigningKey } from '../helpers/signing';
import { until, type Probe } from '../helpers/until';

export type Credential = Parameters<typeof importCredentials>[1][number];

/**
 * A fresh n8n (prepareN8n) with `credentials` imported and each of `workflows` imported and published in turn;
 * `beforeStart` runs next, then n8n starts and its owner signs in. A server that started is stopped again when a
 * later step fails.
 */
export async function startN8nWith(
	credentials: Credential[],
	workflows: Array<Record<string, unknown>>,
	beforeStart?: (n8n: N8nInstance) => Promise<void>,
): Promise<{ n8n: N8nInstance; cookie: string }> {
	const n8n = await prepareN8n();
	try {
		await importCredentials(n8n, credentials);
		for (const workflow of workflows) {
			await importWorkflow(n8n, workflow);
			await activateWorkflow(n8n, String(workflow.id));
		}
		await beforeStart?.(n8n);
		await startServer(n8n);
		return { n8n, cookie: await ownerSession(n8n) };
	} catch (error) {
		await stopServer(n8n);
		throw error;
	}
}

/** A node's reference to the sandbox API key credential (`sandboxKeyCredential`). */
export const SANDBOX_KEY = { mediaGenApi: { id: 'mediagenSandboxKey', name: 'Media Generation sandbox' } };

/** The sandbox API key credential of `account`, as importCredentials takes it. */
export function sandboxKeyCredential(sb: Sandbox, account: Account): Credential {
	return {
		id: SANDBOX_KEY.mediaGenApi.id,
		name: SANDBOX_KEY.mediaGenApi.name,
		type: 'mediaGenApi',
		data: { baseUrl: sb.baseUrl, apiKey: account.keys[0] },
	};
}

/** The Manual Trigger named Start at the canvas origin. */
export function manualStart(id = 'start') {
	return {
		id,
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

export const TRIGGER = 'Media Generation Trigger';

/** A workflow `name` (ID `id`): our trigger on webhook `webhookId`, with `credentials`, → a No Operation node. */
export function triggerWorkflow(w: {
	id: string;
	name: string;
	webhookId: string;
	credentials: object;
	parameters?: object;
	settings?: object;
	typeVersion?: number;
}) {
	const { id, name, webhookId, credentials, parameters = {}, settings = {}, typeVersion = 1 } = w;
	const trigger = { id: randomUUID(), name: TRIGGER, type: `${CUSTOM_PREFIX}mediaGenTrigger`, typeVersion };
	const noOp = { id: randomUUID(), name: 'Finished Run', type: 'n8n-nodes-base.noOp', typeVersion: 1 };
	return {
		id,
		name,
		nodes: [
			{ ...trigger, position: [0, 0], webhookId, parameters, credentials },
			{ ...noOp, position: [240, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Finished Run', type: 'main', index: 0 }]] } },
		settings,
	};
}

/**
 * `until` for the real-n8n suites: up to 2 minutes unless `ms` says otherwise, asking every 250 ms (their probes
 * mostly ask n8n's REST API or wait on n8n's answers, and n8n shares the machine with the test).
 */
export const untilN8n = <T>(probe: Probe<T>, what: string | (() => string), ms = 120_000): Promise<T> =>
	until(probe, what, ms, 250);

/**
 * Waits until n8n answers a POST of `{}` to `url` with anything but 404: n8n registers the production webhooks of
 * an activated workflow shortly after its banner. `what` names the webhook in the error.
 */
export async function untilRegistered(n8n: N8nInstance, url: string | URL, what: string, ms = 120_000): Promise<void> {
	await untilN8n(
		async () => {
			const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			await res.text();
			return res.status !== 404;
		},
		() => `${what} to be registered:\n${n8n.log.join('').slice(-3000)}`,
		ms,
	);
}

/** POSTs `body` to `url` as the service delivers it: webhook-id `msgId`, signed now with `key`. Returns the status. */
export async function sendSigned(url: string, key: SigningKey, msgId: string, body: string): Promise<number> {
	const res = await postSigned(url, key, msgId, body);
	await res.text();
	return res.status;
}

export type ExecutionRow = { id: string; status: string };
const ENDED = ['success', 'error', 'crashed', 'canceled'];

/** The newest executions of `workflowId` (up to 50) and how many n8n counts in all. */
async function listExecutions(n8n: N8nInstance, cookie: string, workflowId: string) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const path = `/rest/executions?filter=${filter}&limit=50`;
	return (await rest<{ data: { count: number; results: ExecutionRow[] } }>(n8n, cookie, path)).data;
}

/**
 * The run data of a stored execution: its nodes' items. (Not the whole record: n8n 1.x stores the workflow with
 * each execution, static data included, where the trigger remembers every webhook-id, the markers' too.)
 */
async function runDataOf(n8n: N8nInstance, cookie: string, id: string): Promise<unknown> {
	const stored = await rest<{ data: { data: string } }>(n8n, cookie, `/rest/executions/${id}`);
	return (parseFlatted(stored.data.data) as { resultData?: { runData?: unknown } }).resultData?.runData;
}

/** The executions of each n8n (by workflow) that markers started. */
const markerExecutions = new WeakMap<N8nInstance, Map<string, Set<string>>>();
const markersOf = (n8n: N8nInstance, workflowId: string): Set<string> => {
	const byWorkflow = markerExecutions.get(n8n) ?? new Map<string, Set<string>>();
	markerExecutions.set(n8n, byWorkflow);
	const ids = byWorkflow.get(workflowId) ?? new Set<string>();
	byWorkflow.set(workflowId, ids);
	return ids;
};

/** How many executions of `workflowId` markers (untilMarkerRan) have started in `n8n`. */
export const markerCount = (n8n: N8nInstance, workflowId: string): number => markersOf(n8n, workflowId).size;

/**
 * The positive marker an absence check waits for, instead of a fixed time: sends the trigger at `url` a test
 * event signed with its Signing Secret `secret` (taken at once, it starts an execution of `workflowId`) and waits
 * until n8n lists that execution and every listed execution has ended. Each call the test made before was
 * answered first, so its trigger had decided by then; an execution it wrongly started is created by the steps
 * the marker's own execution goes through after the marker's whole call, so it is listed by then too. Returns
 * the newest executions (up to 50) and n8n's count of them, every marker's left out.
 */
export async function untilMarkerRan(
	n8n: N8nInstance,
	cookie: string,
	workflowId: string,
	url: string,
	secret: string,
): Promise<{ executions: ExecutionRow[]; count: number }> {
	const markers = markersOf(n8n, workflowId);
	const newestBefore = Math.max(0, ...(await listExecutions(n8n, cookie, workflowId)).results.map((e) => Number(e.id)));
	const msgId = `msg_marker_${randomUUID()}`;
	const status = await sendSigned(url, secret, msgId, JSON.stringify({ marker: msgId }));
	if (status !== 200) throw new Error(`The marker delivery to ${url} was answered ${status}`);
	const checked = new Set<string>(); // executions looked at since the marker was sent
	const { count, results } = await untilN8n(
		async () => {
			const list = await listExecutions(n8n, cookie, workflowId);
			if (list.results.some((e) => !ENDED.includes(e.status))) return undefined;
			for (const e of list.results.filter((x) => Number(x.id) > newestBefore && !checked.has(x.id))) {
				checked.add(e.id);
				if (JSON.stringify(await runDataOf(n8n, cookie, e.id)).includes(msgId)) markers.add(e.id);
			}
			return list.results.some((e) => markers.has(e.id) && checked.has(e.id)) && list;
		},
		() => `the marker execution (${msgId}) of ${workflowId}:\n${n8n.log.join('').slice(-3000)}`,
	);
	return { executions: results.filter((e) => !markers.has(e.id)), count: count - markers.size };
}

/** flatted's format (n8n stores execution data with it): every string inside an entry is an index. */
export function parseFlatted(text: string): unknown {
	const input = JSON.parse(text) as unknown[];
	const filled = new Set<object>();
	const fill = (entry: unknown): unknown => {
		if (entry === null || typeof entry !== 'object' || filled.has(entry)) return entry;
		filled.add(entry);
		const o = entry as Record<string, unknown>;
		for (const k of Object.keys(o)) {
			const v = o[k];
			if (typeof v === 'string') o[k] = fill(input[Number(v)]);
		}
		return entry;
	};
	return fill(input[0]);
}
