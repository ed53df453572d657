// Every item of a Generate or Run Look step (or of their Estimate Cost) read and checked before anything is sent:
// with Continue On Fail off, one bad item refuses the whole batch, naming each bad item as a person counts them.
// Items that fail their checks become error items with the columns a run item has.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorItem, NOTHING_SENT } from '../run/runErrors';
import type { RunRequest } from '../run/runRequest';

/** Items are named as a person counts them: the first is item 1 (n8n's own "[item 0]" counts from 0). */
const itemName = (i: number) => `item ${i + 1}`;

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
	const fields: IDataObject = {
		kind: read('kind'),
		model: read('model', true),
		prompt: read('prompt'),
		app: read('app', true),
		look: read('look'),
	};
	return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ''));
}

/** The refusal of a batch with items that cannot be sent (Generate, Run Look and their Estimate Cost). */
function invalidItemsError(ctx: IExecuteFunctions, bad: Array<{ itemIndex: number; error: Error }>, total: number) {
	const named = (itemIndex: number) => `${itemName(itemIndex)}${promptStart(typedRequest(ctx, itemIndex).prompt)}`;
	const lines = bad.map(({ itemIndex, error }) => `${named(itemIndex)}: ${error.message}`);
	const first = bad[0];
	const message =
		total === 1 ? first.error.message : `${bad.length} of ${total} items cannot be sent: ${lines.join(' ')}`;
	const advice = bad.length === 1 ? ((first.error as { description?: string }).description ?? '') : '';
	return new NodeOperationError(ctx.getNode(), message.slice(0, 2000), {
		description:
			`${NOTHING_SENT}: fix ${bad.length === 1 ? 'this item' : 'these items'} and run again.` +
			`${advice ? ` ${advice}` : ''}${bad.length > 1 ? `\n${lines.join('\n')}` : ''}`,
		// In a batch the message names each item as a person counts; n8n would add its own "[item N]", from 0.
		...(total === 1 ? { itemIndex: first.itemIndex } : {}),
	});
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

/**
 * Reads and checks every item (Generate's or Run Look's preparation); with Continue On Fail off, one bad item
 * refuses the whole batch before anything is sent.
 */
export async function prepareAll(
	ctx: IExecuteFunctions,
	prepare: (itemIndex: number) => Promise<RunRequest>,
): Promise<{ ready: RunRequest[]; bad: Array<{ itemIndex: number; error: Error }> }> {
	const count = ctx.getInputData().length;
	const ready: RunRequest[] = [];
	const bad: Array<{ itemIndex: number; error: Error }> = [];
	for (let i = 0; i < count; i++) {
		try {
			ready.push(await prepare(i));
		} catch (error) {
			bad.push({ itemIndex: i, error: error as Error });
		}
	}
	if (bad.length && !ctx.continueOnFail()) throw invalidItemsError(ctx, bad, count);
	// Continue On Fail: each refused item says it, as the whole step's refusal would.
	for (const { error } of bad) {
		const e = error as { description?: string | null };
		e.description = e.description ? `${NOTHING_SENT}. ${e.description}` : `${NOTHING_SENT}.`;
	}
	return { ready, bad };
}
