// Our node as an AI tool, called the way n8n calls it, through n8n-core's own code: the tool variant n8n
// derives from `usableAsTool` (type "<package>.mediaGenTool", ai_tool output), connected to a parent with an
// ai_tool input; the parent's context builds the tools (getInputConnectionData → createNodeAsTool →
// makeHandleToolInvocation → SupplyDataContext → our execute). Two parents: a webhook context without an
// execution, as the MCP Server Trigger runs tools, and an agent-like node inside a WorkflowExecute execution.
import { WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	NodeConnectionTypes,
	Workflow,
	type ICredentialDataDecryptedObject,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import {
	additionalDataFor,
	executionHooks,
	mediaGenNode,
	nextExecutionId,
	runToEnd,
	startingExecutionData,
	TestNodeTypes,
	useBinaryMode,
} from './engine';

export const TOOL_TYPE = 'n8n-nodes-mediagen.mediaGenTool';

/** A LangChain tool as n8n hands it to its parent. */
export interface CallableTool {
	name: string;
	description: string;
	schema: unknown;
	invoke(args: IDataObject): Promise<string>;
}

/** The tool variant as n8n 2.x derives it (tool-generation/ai-tools.ts): same execute, ai_tool output. */
function toolVariant(): INodeType {
	const base = new MediaGen();
	const description: INodeTypeDescription = {
		...base.description,
		name: `${base.description.name}Tool`,
		displayName: `${base.description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
	return Object.assign(Object.create(Object.getPrototypeOf(base) as object) as INodeType, base, { description });
}

/** A parent with an ai_tool input that, in a normal execution, calls the tool once per input item (an agent). */
const agentLike: INodeType = {
	description: {
		displayName: 'Agent Stand-in',
		name: 'agentStandIn',
		group: ['transform'],
		version: 1,
		description: 'Calls the connected tool with each input item as its arguments',
		defaults: { name: 'Agent' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
	async execute(this: IExecuteFunctions) {
		const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as CallableTool[];
		const out = [];
		for (const [i, item] of this.getInputData().entries()) {
			let answer: string;
			try {
				answer = await tools[0].invoke(item.json);
			} catch (error) {
				answer = `Error: ${(error as Error).message}`;
			}
			out.push({ json: { answer }, pairedItem: { item: i } });
		}
		return [out];
	},
};

/** A parent with only an ai_tool input, as the MCP Server Trigger is. */
const mcpLike: INodeType = {
	description: {
		displayName: 'MCP Stand-in',
		name: 'mcpStandIn',
		group: ['trigger'],
		version: 1,
		description: 'Exposes the connected tools',
		defaults: { name: 'MCP Server' },
		inputs: [{ type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [],
		properties: [],
	},
};

class ToolNodeTypes extends TestNodeTypes {
	private readonly extra: Record<string, INodeType> = {
		[TOOL_TYPE]: toolVariant(),
		'test.agentStandIn': agentLike,
		'test.mcpStandIn': mcpLike,
	};

	getByNameAndVersion(name: string): INodeType {
		return this.extra[name] ?? super.getByNameAndVersion(name);
	}
}

export interface ToolSetup {
	/** The tool node's parameters (`$fromAI(...)` where the caller decides). */
	parameters: IDataObject;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Extra INode fields of the tool node (name, retryOnFail, …). */
	nodeOverrides?: Partial<INode>;
}

/** The tool node below its parent stand-in. */
const TOOL_NODE: Pick<INode, 'id' | 'name' | 'type' | 'position'> = {
	id: 'node-mediagen-tool-1',
	name: 'Generate Media',
	type: TOOL_TYPE,
	position: [0, 200],
};

function toolNode(setup: ToolSetup, nodeTypes: ToolNodeTypes): INode {
	return mediaGenNode(nodeTypes, TOOL_NODE, setup.parameters, setup.nodeOverrides);
}

/** The parent stand-in, its tool below it on the ai_tool connection. */
function withParent(parent: Pick<INode, 'name' | 'type'>, tool: INode, nodeTypes: ToolNodeTypes) {
	const node: INode = { id: `node-${parent.type}`, typeVersion: 1, position: [200, 0], parameters: {}, ...parent };
	const connections: IConnections = {
		[tool.name]: { ai_tool: [[{ node: node.name, type: NodeConnectionTypes.AiTool, index: 0 }]] },
	};
	const nodes = [node, tool];
	const workflow = new Workflow({ id: 'wf-tool', nodes, connections, active: true, nodeTypes, settings: {} });
	return { node, nodes, connections, workflow };
}

/**
 * The tools as the MCP Server Trigger gets them for one request: a webhook context with no execution
 * (n8n builds them afresh for every MCP request, so each call below starts from $runIndex 0).
 */
export async function mcpTools(setup: ToolSetup): Promise<CallableTool[]> {
	await useBinaryMode('default');
	const nodeTypes = new ToolNodeTypes();
	const { node, workflow } = withParent(
		{ name: 'MCP Server', type: 'test.mcpStandIn' },
		toolNode(setup, nodeTypes),
		nodeTypes,
	);
	const additionalData = additionalDataFor(setup.credentials);
	const context = new WebhookContext(workflow, node, additionalData, 'webhook', {} as never, [], null);
	const tools = await context.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
	return (Array.isArray(tools) ? tools : [tools]) as CallableTool[];
}

/** One MCP-like call: fresh tools for the request, as n8n builds them per MCP request. */
export async function mcpCall(setup: ToolSetup, args: IDataObject): Promise<string> {
	const [tool] = await mcpTools(setup);
	try {
		return await tool.invoke(args);
	} catch (error) {
		return `Error: ${(error as Error).message}`;
	}
}

/**
 * An execution in which an agent stand-in calls the tool once per input item (each item's json are the
 * tool's arguments). Returns the agent's answers, one per call.
 */
export async function agentCalls(setup: ToolSetup, calls: IDataObject[]): Promise<string[]> {
	await useBinaryMode('default');
	const nodeTypes = new ToolNodeTypes();
	const {
		node: agent,
		nodes,
		connections,
		workflow,
	} = withParent({ name: 'Agent', type: 'test.agentStandIn' }, toolNode(setup, nodeTypes), nodeTypes);
	const executionId = nextExecutionId();
	const { hooks, done } = executionHooks(executionId, 'manual', nodes, connections);
	const additionalData = additionalDataFor(setup.credentials, { executionId, hooks });
	const runExecutionData = startingExecutionData([
		{ node: agent, data: { main: [calls.map((json) => ({ json }))] }, source: null },
	]);
	const execute = new WorkflowExecute(additionalData, 'manual', runExecutionData);
	const run = await runToEnd(() => execute.processRunExecutionData(workflow), done);
	const task = run.data.resultData.runData[agent.name]?.[0];
	if (!task?.data) throw new Error(`The agent stand-in did not run: ${JSON.stringify(task?.error ?? run.data)}`);
	return task.data.main[0]!.map((item) => String(item.json.answer));
}
