// The node as an AI tool (n8n derives "<package>.mediaGenTool" from `usableAsTool`). Under the MCP Server Trigger there
// is no execution id and the loop pass is always 0, so the default request key would repeat: a call gets its own.
import { randomUUID } from 'crypto';
import type { IExecuteFunctions, INode } from 'n8n-workflow';

/** An agent or MCP client calls the node, one call at a time (told by the suffix, as n8n's '@tool' rule does). */
export function isToolCall(ctx: { getNode(): INode }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * One key per tool call, kept per arguments object: n8n's Retry On Fail runs execute() again with the same one, so a
 * retry finds its first run. Safe with several n8n processes: a call and its retries run in one process.
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
