// Request keys: the service returns the first run for a repeated key and charges nothing, so every
// submission carries one. Defaults are unique per n8n instance, execution, node, loop pass and item;
// a key the user typed is made unique per item; a refunded (FAILED) run's key is followed by -r2, -r3 …
import type { IExecuteFunctions } from 'n8n-workflow';

import { isToolCall, toolCallKey } from './toolCall';

export const REQUEST_KEY_MAX = 120;

function instancePart(ctx: IExecuteFunctions): string {
	try {
		return (ctx.getInstanceId() ?? '').slice(0, 12);
	} catch {
		return '';
	}
}

/** The loop pass of this node in the execution, through n8n's public data proxy ($runIndex). */
export function runIndexOf(ctx: IExecuteFunctions, itemIndex: number): number {
	const value = ctx.getWorkflowDataProxy(itemIndex).$runIndex;
	return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Default request key: same n8n instance, execution, node, loop pass and item → same key, so retries
 * are never charged twice. The instance part keeps two n8n instances (whose execution ids both
 * start at 1) from getting each other's runs back. A tool call has no such identity: it gets a key of its own.
 */
export function defaultRequestKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	if (isToolCall(ctx)) return `n8n-${instancePart(ctx)}-${toolCallKey(ctx, itemIndex)}`.slice(0, REQUEST_KEY_MAX);
	const execution = ctx.getExecutionId() ?? 'manual';
	const key = `n8n-${instancePart(ctx)}-${execution}-${node.id ?? node.name}-${runIndexOf(ctx, itemIndex)}-${itemIndex}`;
	return key.slice(0, REQUEST_KEY_MAX);
}

function withSuffix(base: string, suffix: string): string {
	return `${base.slice(0, REQUEST_KEY_MAX - suffix.length)}${suffix}`;
}

/**
 * Makes typed keys unique per item: where several items share a key (a fixed value rather than an
 * expression that differs per item), each gets "-<item number>" appended. Pure; returns new keys.
 */
export function uniquePerItem(keys: Array<{ itemIndex: number; key: string; typed: boolean }>): Map<number, string> {
	const count = new Map<string, number>();
	for (const k of keys) count.set(k.key, (count.get(k.key) ?? 0) + 1);
	const out = new Map<number, string>();
	for (const k of keys)
		out.set(k.itemIndex, k.typed && count.get(k.key)! > 1 ? withSuffix(k.key, `-${k.itemIndex + 1}`) : k.key);
	return out;
}

/** The key for the n-th attempt after refunded failures: the first key, then "-r2", "-r3" … */
export function retryKey(first: string, attempt: number): string {
	return attempt <= 1 ? first : withSuffix(first, `-r${attempt}`);
}
