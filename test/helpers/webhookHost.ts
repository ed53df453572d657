// Hosts the trigger node's webhook the way n8n does for an active workflow: a real HTTP endpoint
// on 127.0.0.1 that keeps the raw body, builds n8n-core's real WebhookContext and calls the node's
// webhook(). Returned workflowData counts as a started execution.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookContext } from 'n8n-core';
import { Workflow, type IDataObject, type INode, type INodeExecutionData, type IWebhookData, type IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { TestCredentialsHelper, TestNodeTypes, TRIGGER_TYPE, useBinaryMode } from './engine';

export interface WebhookHost {
	url: string;
	started: INodeExecutionData[][];
	responses: Array<{ status: number; body: string }>;
	close(): Promise<void>;
}

/** `loseAnswers`: after handling, answer the first N deliveries with 500, as if the answer was lost, so the sender retries. */
export async function hostTrigger(parameters: IDataObject, credentials: { secret: string; previousSecret?: string }, loseAnswers = 0): Promise<WebhookHost> {
	let toLose = loseAnswers;
	await useBinaryMode('default');
	const node: INode = {
		id: 'trigger-1',
		name: 'Media Generation Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { outcomes: ['succeeded', 'failed'], kinds: [], models: '', downloadOutputs: false, testEvents: 'pass', ...parameters } as INode['parameters'],
		credentials: { mediaGenWebhookApi: { id: '3', name: 'Webhook secret' } },
	};
	const nodeTypes = new TestNodeTypes();
	const workflow = new Workflow({ id: 'wf-trigger', nodes: [node], connections: {}, active: true, nodeTypes, staticData: {} });
	const started: INodeExecutionData[][] = [];
	const responses: WebhookHost['responses'] = [];
	const trigger = nodeTypes.getByNameAndVersion(TRIGGER_TYPE);
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c as Buffer));
		req.on('end', () => {
			void (async () => {
				const rawBody = Buffer.concat(chunks);
				let body: unknown = {};
				try {
					body = JSON.parse(rawBody.toString('utf8'));
				} catch {
					body = {};
				}
				let status = 200;
				let sent = '';
				const response = {
					status(code: number) {
						status = code;
						return response;
					},
					json(data: unknown) {
						sent = JSON.stringify(data);
						res.writeHead(status, { 'content-type': 'application/json' }).end(sent);
						return response;
					},
				};
				const additionalData = {
					credentialsHelper: new TestCredentialsHelper({ mediaGenWebhookApi: credentials }),
					httpRequest: { headers: req.headers, body, rawBody, params: {}, query: {} },
					httpResponse: response,
					restApiUrl: 'http://127.0.0.1/rest',
					webhookBaseUrl: 'http://127.0.0.1/webhook',
					variables: {},
				} as unknown as IWorkflowExecuteAdditionalData;
				const webhookData = { httpMethod: 'POST', node: node.name, path: 'webhook', webhookDescription: trigger.description.webhooks![0], workflowId: workflow.id } as unknown as IWebhookData;
				const ctx = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);
				try {
					const result = await trigger.webhook!.call(ctx);
					if (result.noWebhookResponse) {
						responses.push({ status, body: sent });
						return;
					}
					if (result.workflowData) started.push(result.workflowData[0]);
					// responseMode "onReceived": n8n answers 200 at once
					const text = JSON.stringify(result.webhookResponse ?? { message: 'Workflow was started' });
					const code = toLose-- > 0 ? 500 : 200;
					res.writeHead(code, { 'content-type': 'application/json' }).end(text);
					responses.push({ status: code, body: text });
				} catch (error) {
					res.writeHead(500).end(String((error as Error).message));
					responses.push({ status: 500, body: String((error as Error).message) });
				}
			})();
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/mediagen`,
		started,
		responses,
		close: () => new Promise((r) => server.close(() => r())),
	};
}
