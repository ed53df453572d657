// Request keys: the service returns the first run for a repeated key and charges nothing, so every
// submission carries one. Defaults are unique per n8n instance, execution, node, loop pass and item;
// a key the user typed is made unique per item; a refunded (FAILED) run's key is followed by -r2, -r3 …
// Items are numbered as a person counts them (from 1) in both, so one expression form names every item's key
// when the step is run again (requestKeyAdvice).
import type { IExecuteFunctions } from 'n8n-workflow';

import { isToolCall, toolCallKey } from './toolCall';

export const REQUEST_KEY_MAX = 120;

/** How many fresh runs a retry may start after refunded failures of the same item (key, key-r2 … key-r10). */
export const MAX_FRESH_RUNS = 10;

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
 * It ends in the item's number (from 1), as a shared typed key's suffix does.
 */
export function defaultRequestKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	if (isToolCall(ctx)) return `n8n-${instancePart(ctx)}-${toolCallKey(ctx, itemIndex)}`.slice(0, REQUEST_KEY_MAX);
	const execution = ctx.getExecutionId() ?? 'manual';
	const base = `n8n-${instancePart(ctx)}-${execution}-${node.id ?? node.name}-${runIndexOf(ctx, itemIndex)}`;
	return withSuffix(base, `-${itemIndex + 1}`);
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

/** One item's request key as this step sent it: its first key, or the -r2 … its run was made under. */
export interface SentKey {
	itemIndex: number;
	key: string;
	/** The key is the one the user's expression gave this item, sent unchanged (no item number added). */
	asTyped?: boolean;
}

/** The keys of a step's batch, and how many input items the step had (ready to send or not). */
export interface BatchKeys {
	inputCount: number;
	items: SentKey[];
}

/**
 * The batch's keys, once per step: typed keys shared by several items get the item number, every item's body
 * carries its key, and the list is kept for the advice in any later message.
 */
export function assignRequestKeys(
	inputCount: number,
	ready: Array<{ itemIndex: number; body: { requestKey?: unknown }; typedKey: boolean }>,
): BatchKeys {
	const typed = ready.map((p) => ({ itemIndex: p.itemIndex, key: String(p.body.requestKey), typed: p.typedKey }));
	const keys = uniquePerItem(typed);
	const items = typed.map((t) => {
		const key = keys.get(t.itemIndex)!;
		// A typed key that several ready items share is numbered; one that only one item had can be given as typed
		// only while other items are ready too (else the field's value is one key, shared once more items are ready).
		return { itemIndex: t.itemIndex, key, asTyped: t.typed && key === t.key && ready.length > 1 };
	});
	for (const p of ready) p.body.requestKey = keys.get(p.itemIndex);
	return { inputCount, items };
}

/** Whether sending `first` again arrives at `key`: the node moves on to -r2 … only past refunded runs. */
function reaches(first: string, key: string): boolean {
	if (first.length > REQUEST_KEY_MAX) return false;
	for (let attempt = 1; attempt <= MAX_FRESH_RUNS; attempt++) if (retryKey(first, attempt) === key) return true;
	return false;
}

/** The base B when every item's key is "B-<item number>" (or its -r2 …): B-{{ $itemIndex + 1 }} sends each. */
function numberedBase(items: SentKey[]): string | undefined {
	const first = items[0];
	const number = `-${first.itemIndex + 1}`;
	for (const candidate of [first.key, first.key.replace(/-r\d+$/, '')]) {
		if (!candidate.endsWith(number)) continue;
		const base = candidate.slice(0, -number.length);
		if (/[{}"]/.test(base)) continue;
		if (items.every((k) => reaches(`${base}-${k.itemIndex + 1}`, k.key))) return base;
	}
	return undefined;
}

/** A string literal for an n8n expression that holds no quote, brace or backslash of its own. */
function jsString(text: string): string {
	return `'${text.replace(/[\\'"{}]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}

/**
 * The one wording of "run this step again with …" that gets a step's runs back without paying again: what to put
 * in Request Key so that every item of the same input is sent the very key it was sent (the service then returns
 * the run it made for that key, charging nothing). One input item: its key. Several: an expression that gives each
 * item its own key, so no key is shared (and none numbered) however many items are ready: B-{{ $itemIndex + 1 }}
 * for default keys and for a typed key the items shared, else each item's key listed. Keys the user's expression
 * gave each item: the field as it is.
 */
export function requestKeyAdvice(batch: BatchKeys): string {
	const field = 'Additional Fields → Request Key';
	const items = [...batch.items].sort((a, b) => a.itemIndex - b.itemIndex);
	if (!items.length) return `${field} as it is`;
	if (batch.inputCount <= 1 && items.length === 1) return `${field} set to "${items[0].key}"`;
	if (items.every((k) => k.asTyped)) return `${field} as it is (its expression gives each item the key it was sent)`;
	const base = numberedBase(items);
	let expression = `${base}-{{ $itemIndex + 1 }}`;
	if (base === undefined) {
		const byItem: string[] = Array.from({ length: items[items.length - 1].itemIndex + 1 }, () => 'null');
		for (const k of items) byItem[k.itemIndex] = jsString(k.key);
		expression = `{{ [${byItem.join(', ')}][$itemIndex] }}`;
	}
	return `${field} set to the expression "${expression}" (it gives each item the key it was sent)`;
}

/** A paused batch's keys as its saved items hold them (pause mode saves each item's request with its key). */
export function savedBatchKeys(
	items: Array<{ item: number; body: { requestKey?: unknown } }>,
	invalidCount: number,
): BatchKeys {
	const keys = items.map((i) => ({ itemIndex: i.item, key: String(i.body.requestKey) }));
	return { inputCount: items.length + invalidCount, items: keys };
}
