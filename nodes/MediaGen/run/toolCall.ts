// The node run as an AI tool (an AI Agent's tool, or a tool of the MCP Server Trigger). n8n derives the tool
// variant "<package>.mediaGenTool" from `usableAsTool` and runs it with the same execute(); its own '@tool'
// display rule tells the variant by the same "Tool" suffix (n8n-workflow's node-helpers, 1.x and 2.x).
// Where the MCP Server Trigger runs a tool there is no execution id and the loop pass is 0 on every call, so the
// default request key would repeat: a tool call gets its own key instead.
import { randomUUID } from 'crypto';
import type { IExecuteFunctions, INode, IWebhookFunctions } from 'n8n-workflow';

/** Whether n8n runs this node as an AI tool (an agent or an MCP client calls it, one call at a time). */
export function isToolCall(ctx: IExecuteFunctions | IWebhookFunctions | { getNode(): INode }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * One key per tool call. n8n's Retry On Fail runs execute() again with the same arguments object, so the key is
 * kept per arguments object: a retry of a call finds its first run, a new call (new arguments) makes a new run.
 * Safe with several n8n processes: a call and its retries run in one process, and an entry dies with its arguments.
 */
const keysOfCalls = new WeakMap<object, string>();

export function toolCallKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const args = ctx.getInputData()[itemIndex]?.json;
	const known = args ? keysOfCalls.get(args) : undefined;
	if (known) return known;
	const key = `tool-${randomUUID()}`;
	if (args) keysOfCalls.set(args, key);
	return key;
}
