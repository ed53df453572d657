// Request keys: the service returns the first run for a repeated key and charges nothing, so every submission carries
// one. Items count from 1 in every key, so one expression names each item's key when the step runs again.
import type { IExecuteFunctions } from 'n8n-workflow';

import { isToolCall, toolCallKey } from './toolCall';

export const REQUEST_KEY_MAX = 120;

/** Fresh runs a retry may start after refunded failures of one item (key, key-r2 … key-r10). */
export const MAX_FRESH_RUNS = 10;

function withSuffix(base: string, suffix: string): string {
	return `${base.slice(0, REQUEST_KEY_MAX - suffix.length)}${suffix}`;
}

/**
 * Same n8n instance (two instances' execution ids both start at 1), execution, node, loop pass and item → same key,
 * so a retry is never charged twice. A tool call has no such identity and gets a key of its own.
 */
export function defaultRequestKey(ctx: IExecuteFunctions, itemIndex: number): string {
	let instance = '';
	try {
		instance = (ctx.getInstanceId() ?? '').slice(0, 12);
	} catch {
		// no instance id: the execution and node still tell the keys apart
	}
	if (isToolCall(ctx)) return `n8n-${instance}-${toolCallKey(ctx, itemIndex)}`.slice(0, REQUEST_KEY_MAX);
	const node = ctx.getNode();
	const pass = ctx.getWorkflowDataProxy(itemIndex).$runIndex;
	const runIndex = typeof pass === 'number' && Number.isFinite(pass) ? pass : 0;
	return withSuffix(
		`n8n-${instance}-${ctx.getExecutionId() ?? 'manual'}-${node.id ?? node.name}-${runIndex}`,
		`-${itemIndex + 1}`,
	);
}

/**
 * Typed keys shared by several items (a fixed value, not a per-item expression) get "-<item number>", and a further
 * "-2", "-3" … where that is another item's key already: two items never get one key. Pure.
 */
export function uniquePerItem(keys: Array<{ itemIndex: number; key: string; typed: boolean }>): Map<number, string> {
	const count = new Map<string, number>();
	for (const k of keys) count.set(k.key, (count.get(k.key) ?? 0) + 1);
	const shared = (k: { key: string; typed: boolean }) => k.typed && count.get(k.key)! > 1;
	const taken = new Set(keys.filter((k) => !shared(k)).map((k) => k.key));
	return new Map(
		keys.map((k) => {
			if (!shared(k)) return [k.itemIndex, k.key];
			let key = withSuffix(k.key, `-${k.itemIndex + 1}`);
			for (let n = 2; taken.has(key); n++) key = withSuffix(k.key, `-${k.itemIndex + 1}-${n}`);
			taken.add(key);
			return [k.itemIndex, key];
		}),
	);
}

/** The key for the n-th attempt after refunded failures: the first key, then "-r2", "-r3" … */
export function retryKey(first: string, attempt: number): string {
	return attempt <= 1 ? first : withSuffix(first, `-r${attempt}`);
}

/** One item's key as this step sent it: its first key, or the -r2 … its run was made under. */
interface SentKey {
	itemIndex: number;
	key: string;
	/** The user's expression gave this item that key, sent unchanged (no item number added). */
	asTyped?: boolean;
}

export interface BatchKeys {
	inputCount: number; // input items, ready to send or not
	items: SentKey[];
}

/** The batch's keys, once per step: each body gets its key, and the list is kept for the advice in any message. */
export function assignRequestKeys(
	inputCount: number,
	ready: Array<{ itemIndex: number; body: { requestKey?: unknown }; typedKey: boolean }>,
): BatchKeys {
	const typed = ready.map((p) => ({ itemIndex: p.itemIndex, key: String(p.body.requestKey), typed: p.typedKey }));
	const keys = uniquePerItem(typed);
	for (const p of ready) p.body.requestKey = keys.get(p.itemIndex);
	// A key only one item had counts as typed only while other items are ready too (else the field's value is one
	// key, shared once more items are ready).
	const items = typed.map((t) => {
		const key = keys.get(t.itemIndex)!;
		return { itemIndex: t.itemIndex, key, asTyped: t.typed && key === t.key && ready.length > 1 };
	});
	return { inputCount, items };
}

/** Whether sending `first` again arrives at `key`: the node moves on to -r2 … only past refunded runs. */
const reaches = (first: string, key: string) =>
	first.length <= REQUEST_KEY_MAX &&
	Array.from({ length: MAX_FRESH_RUNS }, (_, n) => retryKey(first, n + 1)).includes(key);

/** The base B when every item's key is "B-<item number>" (or its -r2 …): B-{{ $itemIndex + 1 }} sends each. */
function numberedBase(items: SentKey[]): string | undefined {
	const { key, itemIndex } = items[0];
	const number = `-${itemIndex + 1}`;
	return [key, key.replace(/-r\d+$/, '')]
		.filter((candidate) => candidate.endsWith(number))
		.map((candidate) => candidate.slice(0, -number.length))
		.find((base) => !/[{}"]/.test(base) && items.every((k) => reaches(`${base}-${k.itemIndex + 1}`, k.key)));
}

/** A string literal for an n8n expression that holds no quote, brace or backslash of its own. */
function jsString(text: string): string {
	return `'${text.replace(/[\\'"{}]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}

/**
 * The one wording of "run this step again with …" that gets a step's runs back without paying again: Request Key such
 * that every item is sent the very key it was sent. Several items get an expression, so no key is shared or numbered.
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
