/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Serves paused executions the way n8n's WaitingWebhooks does (packages/cli/src/webhooks/waiting-webhooks.ts):
// POST /webhook-waiting/<execution id>?signature=<token> checks the token, builds n8n-core's real
// WebhookContext over the stored execution data (node context, input items) and calls the node's
// webhook(). Returned workflowData resumes the execution: those items become the node's output; a thrown
// error resumes it as failed; anything else leaves it waiting.
// A node may answer the call itself before its webhook() returns, and keep working: n8n hands the node the
// Express response (additionalData.httpResponse, n8n-core webhook-context.js getResponseObject), awaits webhook()
// (n8n/dist/webhooks/webhook-helpers.js: 2.41.1 line 542, 1.123.81 line 301: runWebhook) and, when it returns
// noWebhookResponse, sends nothing more (2.41.1 lines 590-595 and 1.123.81 lines 342-347; webhook-request-handler.js
// 2.41.1 line 72, 1.123.81 line 71); workflowData then resumes the execution (2.41.1 line 596 on). Nothing in
// waiting-webhooks.js bounds how long webhook() may run. So here too: whatever the node wrote goes out at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { NODE_TYPE, TestCredentialsHelper, TestNodeTypes, type RunResult } from './engine';

export interface Resumed {
	items: INodeExecutionData[];
	error?: { message: string; description?: string | null; context?: IDataObject };
}

interface Paused {
	result: RunResult;
	credentials: Record<string, IDataObject>;
	done?: Resumed;
	waiters: Array<(r: Resumed) => void>;
}

export interface WaitingHost {
	/** Pass as `webhookWaitingBaseUrl` to runNode. */
	baseUrl: string;
	/** Registers a paused execution (runNode's result with status waiting). */
	hold(result: RunResult, credentials: Record<string, IDataObject>): void;
	/** Resolves when the execution resumes (or rejects after `ms`). */
	resumed(executionId: string, ms?: number): Promise<Resumed>;
	isWaiting(executionId: string): boolean;
	/** Answers of every call, in order, with how long after the call arrived each was sent (ms). */
	answers: Array<{ executionId: string; status: number; body: string; ms: number }>;
	/** How long each call kept the process busy in the node's webhook(), in ms. */
	busyMs: number[];
	/** CPU time (user + system) this process spent while each call ran, in ms; the last is the resuming call. */
	cpuMs: number[];
	close(): Promise<void>;
}

/**
 * `nodeType` stands for the node as another n8n process loaded it (its own module memory), for example one
 * loaded in `jest.isolateModules`: a restarted n8n, or a queue-mode webhook process that did not pause it.
 */
export async function startWaitingHost(options: { nodeType?: INodeType } = {}): Promise<WaitingHost> {
	const paused = new Map<string, Paused>();
	let base = '';
	const answers: WaitingHost['answers'] = [];
	const busyMs: number[] = [];
	const cpuMs: number[] = [];
	const nodeType = options.nodeType ?? new TestNodeTypes().getByNameAndVersion(NODE_TYPE);

	async function handle(req: http.IncomingMessage, rawBody: Buffer, res: http.ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const executionId = decodeURIComponent(url.pathname.split('/').pop() ?? '');
		const entry = paused.get(executionId);
		const arrived = performance.now();
		let status = 200;
		let sent = '';
		const send = (code: number, body: unknown) => {
			status = code;
			sent = JSON.stringify(body);
			if (!res.headersSent) res.writeHead(code, { 'content-type': 'application/json' }).end(sent);
			answers.push({ executionId, status: code, body: sent, ms: performance.now() - arrived });
		};
		// Not saved as waiting yet: n8n answers 409 (running), and the service delivers again later.
		if (!entry) return send(409, { error: 'The execution is running already' });
		if (url.searchParams.get('signature') !== entry.result.run.data.resumeToken)
			return send(401, { error: 'Invalid token' });
		if (entry.done) return send(409, { error: 'The execution has finished already' });
		const response = {
			headersSent: false,
			status(code: number) {
				status = code;
				return response;
			},
			json(data: unknown) {
				response.headersSent = true;
				send(status, data);
				return response;
			},
		};
		const query = Object.fromEntries(url.searchParams.entries());
		const additionalData = {
			credentialsHelper: new TestCredentialsHelper(entry.credentials as never),
			httpRequest: { headers: req.headers, body: {}, rawBody, params: {}, query, url: req.url },
			httpResponse: response,
			executionId,
			restApiUrl: 'http://127.0.0.1/rest',
			webhookBaseUrl: 'http://127.0.0.1/webhook',
			webhookWaitingBaseUrl: base,
			formWaitingBaseUrl: base.replace('webhook-waiting', 'form-waiting'),
			variables: {},
		} as unknown as IWorkflowExecuteAdditionalData;
		const webhookData = {
			httpMethod: 'POST',
			node: entry.result.node.name,
			path: '',
			webhookDescription: nodeType.description.webhooks![0],
			workflowId: entry.result.workflow.id,
		} as unknown as IWebhookData;
		const { workflow, node, run } = entry.result;
		const ctx = new WebhookContext(workflow, node, additionalData, 'manual', webhookData, [], run.data);
		const finish = (resumed: Resumed) => {
			entry.done = resumed;
			for (const w of entry.waiters.splice(0)) w(resumed);
		};
		const began = performance.now();
		const cpu = process.cpuUsage();
		const measure = () => {
			busyMs.push(performance.now() - began);
			const used = process.cpuUsage(cpu);
			cpuMs.push((used.user + used.system) / 1000);
		};
		try {
			const result = await nodeType.webhook!.call(ctx).finally(measure);
			if (!result.noWebhookResponse) send(200, result.webhookResponse ?? { message: 'Resumed' });
			if (result.workflowData) finish({ items: result.workflowData[0] ?? [] });
		} catch (error) {
			const e = error as { message: string; description?: string | null; context?: IDataObject };
			if (!response.headersSent) send(500, { error: e.message });
			finish({ items: [], error: { message: e.message, description: e.description, context: e.context } });
		}
	}

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => void handle(req, Buffer.concat(chunks), res));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting`;
	return {
		baseUrl: base,
		answers,
		busyMs,
		cpuMs,
		hold(result, credentials) {
			paused.set(result.executionId, { result, credentials, waiters: [] });
		},
		isWaiting: (id) => !!paused.get(id) && !paused.get(id)!.done,
		resumed(executionId, ms = 60_000) {
			const entry = paused.get(executionId);
			if (!entry) return Promise.reject(new Error(`execution ${executionId} is not held`));
			if (entry.done) return Promise.resolve(entry.done);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(
					() => reject(new Error(`execution ${executionId} did not resume within ${ms} ms`)),
					ms,
				);
				entry.waiters.push((r) => {
					clearTimeout(timer);
					resolve(r);
				});
			});
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
