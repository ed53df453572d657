/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Hosts the trigger node's webhook the way n8n does for an active workflow: a real HTTP endpoint
// on 127.0.0.1 that keeps the raw body, builds n8n-core's real WebhookContext and calls the node's
// webhook(). Returned workflowData counts as a started execution. Static data follows n8n 2.40's
// LiveWebhooks: each request builds its Workflow from the stored JSON, and the save in the response
// callback happens only if `__dataChanged` survives; for an onReceived answer that callback comes after
// WorkflowRunner wraps the same object in a second Workflow, which resets the flag.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HookContext, WebhookContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IWebhookData,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TestCredentialsHelper, TestNodeTypes, TRIGGER_TYPE, useBinaryMode } from './engine';

/** The workflow row's static-data column, shared by hosts to model a restart (a new process, same database). */
export interface StaticDataStore {
	json: string | null;
}

export interface HostOptions {
	store?: StaticDataStore;
	/** Another id gives the node an empty process memory, as after a restart. Default: a new id per host. */
	workflowId?: string;
	/** The optional Media Generation API credential attached to the trigger (reads back unverified deliveries). */
	apiCredentials?: { baseUrl: string; apiKey: string };
	/** The trigger's version: 1 (the default here: saved workflows) or 1.1 (new nodes, Check Unverified Deliveries). */
	typeVersion?: number;
}

export interface WebhookHost {
	url: string;
	store: StaticDataStore;
	started: INodeExecutionData[][];
	responses: Array<{ status: number; body: string }>;
	close(): Promise<void>;
}

/** `loseAnswers`: after handling, answer the first N deliveries with 500, as if the answer was lost, so the sender retries. */
let hosted = 0;

function triggerNode(parameters: IDataObject, withApiCredential = false, typeVersion = 1): INode {
	return {
		id: 'trigger-1',
		name: 'Media Generation Trigger',
		type: TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		parameters: {
			outcomes: ['succeeded', 'failed'],
			kinds: [],
			models: '',
			downloadOutputs: false,
			testEvents: 'pass',
			...parameters,
		} as INode['parameters'],
		credentials: {
			mediaGenWebhookApi: { id: '3', name: 'Webhook secret' },
			...(withApiCredential ? { mediaGenApi: { id: '1', name: 'Media Generation API' } } : {}),
		},
	};
}

/** What n8n runs on activation: the node's webhookMethods.default.checkExists, through n8n-core's HookContext. */
export async function activateTrigger(
	credentials: { secret: string; previousSecret?: string },
	parameters: IDataObject = {},
	options: Pick<HostOptions, 'typeVersion'> & { withApiCredential?: boolean } = {},
): Promise<boolean> {
	const node = triggerNode(parameters, options.withApiCredential, options.typeVersion);
	const nodeTypes = new TestNodeTypes();
	const workflow = new Workflow({ id: 'wf-activate', nodes: [node], connections: {}, active: true, nodeTypes });
	const credentialsHelper = new TestCredentialsHelper({ mediaGenWebhookApi: credentials });
	const additionalData = { credentialsHelper } as unknown as IWorkflowExecuteAdditionalData;
	const ctx = new HookContext(workflow, node, additionalData, 'trigger', 'activate');
	return await nodeTypes.getByNameAndVersion(TRIGGER_TYPE).webhookMethods!.default!.checkExists.call(ctx);
}

export async function hostTrigger(
	parameters: IDataObject,
	credentials: { secret: string; previousSecret?: string },
	loseAnswers = 0,
	options: HostOptions = {},
): Promise<WebhookHost> {
	let toLose = loseAnswers;
	await useBinaryMode('default');
	const node = triggerNode(parameters, !!options.apiCredentials, options.typeVersion);
	const nodeTypes = new TestNodeTypes();
	const credentialData = {
		mediaGenWebhookApi: credentials,
		...(options.apiCredentials ? { mediaGenApi: options.apiCredentials } : {}),
	};
	const store = options.store ?? { json: null };
	const workflowId = options.workflowId ?? `wf-trigger-${++hosted}`; // each host its own workflow
	const load = () => (store.json === null ? null : (JSON.parse(store.json) as IDataObject));
	const build = (staticData: IDataObject | null) =>
		new Workflow({ id: workflowId, nodes: [node], connections: {}, active: true, nodeTypes, staticData: staticData! });
	const saveIfChanged = (workflow: Workflow) => {
		const changed = (workflow.staticData as { __dataChanged?: boolean }).__dataChanged;
		if (changed) store.json = JSON.stringify(workflow.staticData);
	};
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
						if (status < 300 && toLose-- > 0) status = 500;
						res.writeHead(status, { 'content-type': 'application/json' }).end(sent);
						return response;
					},
				};
				const staticData = load();
				const workflow = build(staticData);
				const additionalData = {
					credentialsHelper: new TestCredentialsHelper(credentialData),
					httpRequest: { headers: req.headers, body, rawBody, params: {}, query: {} },
					httpResponse: response,
					restApiUrl: 'http://127.0.0.1/rest',
					webhookBaseUrl: 'http://127.0.0.1/webhook',
					variables: {},
				} as unknown as IWorkflowExecuteAdditionalData;
				const webhookData = {
					httpMethod: 'POST',
					node: node.name,
					path: 'webhook',
					webhookDescription: trigger.description.webhooks![0],
					workflowId: workflow.id,
				} as unknown as IWebhookData;
				const ctx = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);
				try {
					const result = await trigger.webhook!.call(ctx);
					if (result.noWebhookResponse) {
						saveIfChanged(workflow); // the callback runs before the execution is started
						if (result.workflowData) started.push(result.workflowData[0]);
						responses.push({ status, body: sent });
						return;
					}
					if (result.workflowData) {
						build(staticData); // WorkflowRunner.establishContextForPersistence: resets __dataChanged
						started.push(result.workflowData[0]);
					}
					saveIfChanged(workflow);
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
		store,
		started,
		responses,
		close: () => new Promise((r) => server.close(() => r())),
	};
}
