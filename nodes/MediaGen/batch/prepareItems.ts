// The first step of Generate and Run Look (and of their Estimate Cost): every item read and checked before anything
// is sent. With Continue On Fail off one bad item refuses the whole step, naming each bad item as a person counts.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assignRequestKeys, type BatchKeys } from '../run/requestKey';
import { addRunDetails, errorItem, NOTHING_SENT, saysNothingSent } from '../run/runErrors';
import type { RunRequest } from '../run/runRequest';

/** An operation's reading of one item into its checked request (it throws the item's refusal). */
export type PrepareItem = (itemIndex: number) => Promise<RunRequest>;

export interface CheckedItems {
	ready: RunRequest[];
	/** Only with Continue On Fail (without it a refused item stops the step). */
	refused: Array<{ itemIndex: number; error: Error }>;
	keys: BatchKeys;
}

/** The start of a prompt, quoted, so a person finds the item. */
function promptStart(prompt: unknown): string {
	const text = typeof prompt === 'string' ? prompt.replace(/\s+/g, ' ').trim() : '';
	if (!text) return '';
	return ` ("${text.length > 40 ? `${text.slice(0, 40)}…` : text}")`;
}

/** What an item that failed its checks asked for, read from the parameters as typed (some may be missing). */
export function typedRequest(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const read = (name: string, extractValue = false) => {
		try {
			const value = ctx.getNodeParameter(name, itemIndex, undefined, extractValue ? { extractValue } : {});
			return typeof value === 'string' || typeof value === 'number' ? value : undefined;
		} catch {
			return undefined;
		}
	};
	const fields = {
		kind: read('kind'),
		model: read('model', true),
		prompt: read('prompt'),
		app: read('app', true),
		look: read('look'),
	};
	return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ''));
}

/** "item 2 ("a kite")", or "items 1, 2 and 4" (their prompts too, for up to three). */
function itemNames(ctx: IExecuteFunctions, indexes: number[]): string {
	const named = indexes.map((i) => `${i + 1}${indexes.length <= 3 ? promptStart(typedRequest(ctx, i).prompt) : ''}`);
	const list = named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
	return `item${named.length === 1 ? '' : 's'} ${list}`;
}

function invalidItemsError(ctx: IExecuteFunctions, refused: CheckedItems['refused'], total: number) {
	// Items as a person counts them: the first is item 1 (n8n's own "[item 0]" counts from 0). Items refused for the
	// same reason are named together, so the reason (and its advice) is said once.
	const byReason = new Map<string, CheckedItems['refused']>();
	for (const entry of refused) byReason.set(entry.error.message, [...(byReason.get(entry.error.message) ?? []), entry]);
	const reasons = [...byReason].map(
		([why, items]) =>
			`${itemNames(
				ctx,
				items.map((i) => i.itemIndex),
			)}: ${why}`,
	);
	const [first] = refused;
	const message =
		total === 1 ? first.error.message : `${refused.length} of ${total} items cannot be sent: ${reasons.join(' ')}`;
	const advice = byReason.size === 1 ? ((first.error as { description?: string }).description ?? '') : '';
	const error = new NodeOperationError(ctx.getNode(), message.slice(0, 2000), {
		description:
			`${NOTHING_SENT}: fix ${refused.length === 1 ? 'this item' : 'these items'} and run again.` +
			`${advice ? ` ${advice}` : ''}`,
		// n8n would add its own "[item N]", counted from 0, to a message that names items already.
		...(total === 1 ? { itemIndex: first.itemIndex } : {}),
	});
	return addRunDetails(error, { nothingCharged: true });
}

/**
 * A Continue On Fail item that leads with `id` and has `options`, as a run item does, also when no item of the batch
 * succeeded; `itemsInInputOrder` gives it a run's other columns when others did.
 */
export function failedItem(error: unknown, itemIndex: number, asked: IDataObject): INodeExecutionData {
	const item = errorItem(error, itemIndex, asked);
	item.json = { id: item.json.id ?? null, ...item.json };
	item.json.options ??= null;
	return item;
}

/** Reads and checks every item with the operation's `prepare`, then gives the ready ones their request keys. */
export async function prepareItems(ctx: IExecuteFunctions, prepare: PrepareItem): Promise<CheckedItems> {
	const count = ctx.getInputData().length;
	const ready: RunRequest[] = [];
	const refused: CheckedItems['refused'] = [];
	for (let i = 0; i < count; i++) {
		try {
			ready.push(await prepare(i));
		} catch (error) {
			refused.push({ itemIndex: i, error: error as Error });
		}
	}
	if (refused.length && !ctx.continueOnFail()) throw invalidItemsError(ctx, refused, count);
	// Continue On Fail: each refused item says it, as the step's refusal would.
	for (const { error } of refused) saysNothingSent(error);
	const keys = assignRequestKeys(count, ready);
	for (const p of ready) p.batchKeys = keys;
	return { ready, refused, keys };
}
