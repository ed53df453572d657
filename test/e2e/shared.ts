/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the real-n8n suites (test/e2e, test/e2e-queue, test/ui) share: a fresh n8n started with credentials and
// published workflows, the sandbox API key credential as they import it, the Manual Trigger that starts a workflow,
// a trigger workflow, waiting for n8n to register a production webhook, and reading n8n's stored execution data (flatted).
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
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';

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
}) {
	const { id, name, webhookId, credentials, parameters = {}, settings = {} } = w;
	const trigger = { id: randomUUID(), name: TRIGGER, type: `${CUSTOM_PREFIX}mediaGenTrigger`, typeVersion: 1 };
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
 * Waits until n8n answers a POST of `{}` to `url` with anything but 404: n8n registers the production webhooks of
 * an activated workflow shortly after its banner. `what` names the webhook in the error.
 */
export async function untilRegistered(n8n: N8nInstance, url: string | URL, what: string, ms = 120_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		await res.text();
		if (res.status !== 404) return;
		await new Promise((r) => setTimeout(r, 1000));
	}
	throw new Error(`${what} was not registered within ${ms / 1000} s:\n${n8n.log.join('').slice(-3000)}`);
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
