/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Runs workflows through n8n-core's real WorkflowExecute with our nodes and credentials loaded:
// a minimal INodeTypes, a credentials helper that calls our credentials' authenticate(), and
// additional data with lifecycle hooks. Binary data uses n8n's own BinaryDataService, in memory
// ("default") or on disk ("filesystem") mode.
import 'reflect-metadata';
import { Container } from '@n8n/di';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BinaryDataService, ExecutionLifecycleHooks, LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type IExecuteContextData,
	type IExecuteData,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IRunExecutionData,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { MediaGenAnonymousApi } from '../../credentials/MediaGenAnonymousApi.credentials';
import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { MediaGenWebhookApi } from '../../credentials/MediaGenWebhookApi.credentials';
import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';

export const NODE_TYPE = 'n8n-nodes-mediagen.mediaGen';
export const TRIGGER_TYPE = 'n8n-nodes-mediagen.mediaGenTrigger';

const nodeClasses: Record<string, INodeType> = {
	[NODE_TYPE]: new MediaGen(),
	[TRIGGER_TYPE]: new MediaGenTrigger(),
};

export const credentialTypes: Record<string, ICredentialType> = {
	mediaGenApi: new MediaGenApi(),
	mediaGenAnonymousApi: new MediaGenAnonymousApi(),
	mediaGenWebhookApi: new MediaGenWebhookApi(),
};

export class TestNodeTypes implements INodeTypes {
	/** @param mediaGen our node as another process loaded it (its own module memory), instead of this one's */
	constructor(private readonly mediaGen?: INodeType) {}

	getByName(name: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(name);
	}

	getByNameAndVersion(name: string): INodeType {
		// The tool variant's type reads parameters as our node does (load-options contexts of its panel).
		const type = name === NODE_TYPE && this.mediaGen ? this.mediaGen : nodeClasses[name.replace(/Tool$/, '')];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	}

	getKnownTypes() {
		return {};
	}
}

export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestParams: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const type = credentialTypes[typeName];
		if (typeof type?.authenticate === 'function') return await type.authenticate(credentials, requestParams);
		return requestParams;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	getCredentialsProperties(type: string) {
		return credentialTypes[type]?.properties ?? [];
	}

	async getDecrypted(_a: unknown, _n: unknown, type: string): Promise<ICredentialDataDecryptedObject> {
		const d = this.data[type];
		if (!d) throw new Error(`No test credentials of type ${type}`);
		return { ...d };
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used in tests');
	}

	async updateCredentials(): Promise<void> {}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getOAuth2Options() {
		return undefined;
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}
}

let binaryMode: string | undefined;

/** Sets up n8n's binary data service once per mode ("default" keeps data in memory, "filesystem" on disk). */
export async function useBinaryMode(mode: 'default' | 'filesystem' = 'default'): Promise<string> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mediagen-binary-'));
	if (binaryMode === mode) return dir;
	const config = {
		mode,
		availableModes: ['default', 'filesystem'],
		localStoragePath: dir,
		signingSecret: 'test',
		dbMaxFileSize: 512,
	};
	const noop = () => undefined;
	const logger = { info: noop, debug: noop, warn: noop, error: noop, scoped: () => logger };
	const service = new BinaryDataService(
		config as never,
		{ error: noop, warn: noop, info: noop } as never,
		logger as never,
	);
	await service.init();
	Container.set(BinaryDataService, service);
	binaryMode = mode;
	return dir;
}

/** Our node in the one-node workflows of the engine tests (runNode, loadOptionsContext). */
const TEST_NODE: Pick<INode, 'id' | 'name' | 'type' | 'position'> = {
	id: 'node-mediagen-1',
	name: 'Media Generation',
	type: NODE_TYPE,
	position: [0, 0],
};

/** n8n-core's real LoadOptionsContext for our node, as the editor builds it while a dropdown opens. */
export function loadOptionsContext(
	parameters: IDataObject,
	credentials: Record<string, ICredentialDataDecryptedObject>,
	type = TEST_NODE.type,
): LoadOptionsContext {
	const nodeTypes = new TestNodeTypes();
	const node: INode = {
		...TEST_NODE,
		typeVersion: 1,
		parameters: parameters as INode['parameters'],
		credentials: { mediaGenApi: { id: '1', name: 'api' }, mediaGenAnonymousApi: { id: '2', name: 'anon' } },
	};
	const workflow = new Workflow({ id: 'wf-load', nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(credentials),
		currentNodeParameters: parameters,
		restApiUrl: 'http://127.0.0.1/rest',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	// `type`: the node as the editor names it (the tool variant's type for its panel); the workflow knows our node.
	return new LoadOptionsContext(workflow, { ...node, type }, additionalData, 'parameters.model');
}

export interface RunOptions {
	/** Parameters of the MediaGen node. */
	parameters: IDataObject;
	/** Input items handed to the node. */
	items?: INodeExecutionData[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	nodeOverrides?: Partial<INode>;
	executionId?: string;
	mode?: WorkflowExecuteMode;
	/** Called with the running execution, e.g. to cancel it. */
	onStart?: (execution: { cancel(): void }) => void;
	/** How many times the node runs in the one execution (loop passes: $runIndex 0, 1, …). */
	passes?: number;
	/** Where n8n serves waiting executions (pause mode): see test/helpers/waitingHost.ts. */
	webhookWaitingBaseUrl?: string;
	/** The execution's context data as n8n saved it (a later part of an execution that ran on elsewhere). */
	contextData?: IDataObject;
	/** Our node as another process loaded it (for example in `jest.isolateModules`). */
	nodeType?: INodeType;
}

export interface RunResult {
	run: IRun;
	/** The workflow and node as run, for resuming a paused execution. */
	workflow: Workflow;
	node: INode;
	executionId: string;
	items: INodeExecutionData[];
	/** The output of every pass, when the node ran more than once. */
	passes: INodeExecutionData[][];
	error?: { message: string; description?: string | null; context?: IDataObject };
}

let executionCounter = 0;

export const nextExecutionId = () => `exec-${++executionCounter}-${Date.now()}`;

/** Our node as the editor stores it: the three credentials named, defaults filled in; `overrides` last. */
export function mediaGenNode(
	nodeTypes: INodeTypes,
	base: Pick<INode, 'id' | 'name' | 'type' | 'position'>,
	parameters: IDataObject,
	overrides: Partial<INode> = {},
): INode {
	const node: INode = {
		typeVersion: 1,
		credentials: {
			mediaGenApi: { id: '1', name: 'Media Generation API' },
			mediaGenAnonymousApi: { id: '2', name: 'Media Generation Anonymous' },
			mediaGenWebhookApi: { id: '3', name: 'Media Generation Webhook Signing Secret' },
		},
		...base,
		parameters: parameters as INode['parameters'],
		...overrides,
	};
	const type = nodeTypes.getByNameAndVersion(node.type, 1);
	// Fill defaults the way the editor would store them.
	const resolved = NodeHelpers.getNodeParameters(
		type.description.properties,
		node.parameters,
		true,
		false,
		node,
		type.description,
	);
	node.parameters = { ...(resolved ?? {}), ...node.parameters } as INode['parameters'];
	return node;
}

/** Lifecycle hooks of one execution, and a promise of its end (n8n reports it there when a run is cancelled). */
export function executionHooks(executionId: string, mode: WorkflowExecuteMode, nodes: INode[], connections = {}) {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: 'wf-test',
		name: 'test',
		nodes,
		connections,
		active: false,
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
		isArchived: false,
	} as never);
	let finish: (run: IRun) => void = () => undefined;
	const done = { promise: new Promise<IRun>((resolve) => (finish = resolve)) };
	hooks.addHandler('workflowExecuteAfter', (run) => finish(run));
	return { hooks, done };
}

/** What n8n hands a node about its surroundings; `executionId` undefined where n8n runs a tool for a webhook. */
export function additionalDataFor(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	extra: { executionId?: string; hooks?: ExecutionLifecycleHooks; webhookWaitingBaseUrl?: string } = {},
): IWorkflowExecuteAdditionalData {
	return {
		hooks: extra.hooks,
		executionId: extra.executionId,
		credentialsHelper: new TestCredentialsHelper(credentials),
		currentNodeParameters: undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: extra.webhookWaitingBaseUrl ?? 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		variables: {},
		userId: 'user-1',
		executeWorkflow: async () => {
			throw new Error('not supported');
		},
		getRunExecutionData: async () => undefined,
		setExecutionStatus: () => undefined,
		sendDataToUI: () => undefined,
		logAiEvent: () => undefined,
		startRunnerTask: async () => {
			throw new Error('not supported');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** An execution's data as n8n creates it, with the nodes to run first. */
export function startingExecutionData(nodeExecutionStack: IExecuteData[]): IRunExecutionData {
	return {
		// As n8n creates it with each execution: the token that the resume URL carries.
		resumeToken: `token${Math.random().toString(36).slice(2)}`,
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: null,
			nodeExecutionStack,
		},
	} as unknown as IRunExecutionData;
}

/**
 * Awaits an execution `start` begins. Where WorkflowExecute throws instead (a cancelled run), the run as its
 * hooks reported it at the end (`done`, from executionHooks).
 */
export async function runToEnd(start: () => PromiseLike<IRun>, done: { promise: Promise<IRun> }): Promise<IRun> {
	try {
		return await start();
	} catch {
		return await done.promise;
	}
}

/** Runs a one-node workflow (our MediaGen node fed with `items`) through WorkflowExecute. */
export async function runNode(options: RunOptions): Promise<RunResult> {
	await useBinaryMode(binaryMode === 'filesystem' ? 'filesystem' : 'default');
	const nodeTypes = new TestNodeTypes(options.nodeType);
	const node = mediaGenNode(nodeTypes, TEST_NODE, options.parameters, options.nodeOverrides);
	const workflow = new Workflow({
		id: 'wf-test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		settings: {},
	});
	const executionId = options.executionId ?? nextExecutionId();
	const { hooks, done } = executionHooks(executionId, options.mode ?? 'manual', [node]);
	const additionalData = additionalDataFor(options.credentials ?? {}, {
		executionId,
		hooks,
		webhookWaitingBaseUrl: options.webhookWaitingBaseUrl,
	});
	const runExecutionData = startingExecutionData(
		Array.from({ length: options.passes ?? 1 }, () => ({
			node,
			data: { main: [options.items ?? [{ json: {} }]] },
			source: null,
		})),
	);
	if (options.contextData) runExecutionData.executionData!.contextData = options.contextData as IExecuteContextData;
	const execute = new WorkflowExecute(additionalData, options.mode ?? 'manual', runExecutionData);
	let running: ReturnType<typeof execute.processRunExecutionData>;
	try {
		running = execute.processRunExecutionData(workflow);
	} catch (error) {
		// n8n refuses a workflow with node issues (for example an empty required field) before running it.
		return {
			run: undefined as unknown as IRun,
			workflow,
			node,
			executionId,
			items: [],
			passes: [],
			error: { message: (error as Error).message, description: (error as { description?: string }).description },
		};
	}
	options.onStart?.({ cancel: () => running.cancel() });
	const run = await runToEnd(() => running, done);
	const tasks = run.data.resultData.runData[node.name] ?? [];
	const taskData = tasks[0];
	const items = taskData?.data?.main?.[0] ?? [];
	const passes = tasks.map((t) => t.data?.main?.[0] ?? []);
	const err = (taskData?.error ?? run.data.resultData.error) as RunResult['error'] | undefined;
	return {
		run,
		workflow,
		node,
		executionId,
		items,
		passes,
		error: err ? { message: err.message, description: err.description, context: err.context } : undefined,
	};
}

/**
 * What n8n's WaitTracker does when a waiting execution's waitTill passes with no webhook call: it runs the
 * stored execution on (packages/cli/src/wait-tracker.ts), and WorkflowExecute treats the waiting node as
 * done (handleWaitingState). Returns the paused node's output then.
 */
export async function resumeByTimer(
	paused: RunResult,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): Promise<RunResult> {
	if (!paused.run.data.waitTill) throw new Error(`execution ${paused.executionId} is not waiting`);
	const { hooks, done } = executionHooks(paused.executionId, 'manual', [paused.node]);
	const additionalData = additionalDataFor(credentials, { executionId: paused.executionId, hooks });
	const execute = new WorkflowExecute(additionalData, 'manual', paused.run.data);
	const run = await runToEnd(() => execute.processRunExecutionData(paused.workflow), done);
	const tasks = run.data.resultData.runData[paused.node.name] ?? [];
	const taskData = tasks[tasks.length - 1];
	const err = (taskData?.error ?? run.data.resultData.error) as RunResult['error'] | undefined;
	return { ...paused, run, items: taskData?.data?.main?.[0] ?? [], passes: [], error: err };
}
