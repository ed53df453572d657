// Estimate Cost: every item checked as Generate or Run Look would, priced, nothing submitted, then a summary. Every
// item opens with `estimate`, the same in words for n8n's Table view; the numbers stay in their own fields.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { identityOf } from '../../shared/transport';
import { readAccount } from '../run/concurrency';
import { failedItem, prepareItems, typedRequest, type PrepareItem } from './prepareItems';
import { itemsInInputOrder, withSameColumns } from '../run/runOutput';
import { describeBasis, HISTORY_PAGES, priceBookFor, type Price } from '../run/priceBook';

export const summaryField: INodeProperties = {
	displayName: 'Put the Summary',
	name: 'estimateSummary',
	type: 'options',
	options: [
		{
			name: 'In One Item After the Estimates',
			value: 'lastItem',
			description: 'One item per input item, then one item with the totals',
		},
		{
			name: 'On Every Item',
			value: 'everyItem',
			description: 'The totals are added to each item (handy before an IF node)',
		},
	],
	default: 'lastItem',
	description:
		'Where totalCredits, unknownItems, creditsLeft and enough go. Estimating is free: it starts no run; ' +
		`it reads the model list, at most ${HISTORY_PAGES} pages of your run history and your balance.`,
};

interface Totals {
	totalCredits: number;
	unknownItems: number;
	creditsLeft: number | null;
	enough: boolean | null;
	refusedItems?: number;
}

const number = (n: number) => n.toLocaleString('en-US');
const count = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;

/** One item's price: "5 credits (list price)", "180 credits (your last identical run)", "price unknown". */
export function itemEstimate(price: Price): string {
	if (price.credits === null) return 'price unknown';
	const basis = price.basis === 'earlier run' ? 'your last identical run' : 'list price';
	return `${count(price.credits, 'credit', 'credits')} (${basis})`;
}

/** The batch: "Total: 15 credits; 4,970 left; enough", with unknown prices and refused items when there are any. */
export function totalEstimate({ totalCredits, unknownItems, creditsLeft, enough, refusedItems }: Totals): string {
	const unknown = unknownItems ? ` + ${count(unknownItems, 'price', 'prices')} unknown` : '';
	const parts = [
		`Total: ${count(totalCredits, 'credit', 'credits')}${unknown}`,
		creditsLeft === null ? 'credits left not read' : `${number(creditsLeft)} left`,
	];
	if (enough !== null || creditsLeft !== null)
		parts.push(enough === true ? 'enough' : enough === false ? 'not enough' : 'enough for the known prices');
	if (refusedItems) parts.push(`${count(refusedItems, 'item', 'items')} refused`);
	return parts.join('; ');
}

/**
 * The balance, or null with why. An anonymous ID's balance is not read: the first request with a new ID opens one
 * of the address's 3 free wallets a day, and an estimate must not spend one.
 */
async function creditsLeft(ctx: IExecuteFunctions): Promise<{ credits: number | null; note?: string }> {
	if ((await identityOf(ctx)).kind === 'anonymous') {
		return { credits: null, note: 'not read for an anonymous ID: reading it would open a free wallet for a new ID' };
	}
	const credits = Number((await readAccount(ctx))?.credits);
	return Number.isFinite(credits) ? { credits } : { credits: null, note: 'the service did not give a balance' };
}

export async function estimateBatch(ctx: IExecuteFunctions, prepare: PrepareItem): Promise<INodeExecutionData[]> {
	const { ready: prepared, refused: bad } = await prepareItems(ctx, prepare);
	const book = await priceBookFor(ctx, prepared, false);
	const out = new Map<number, INodeExecutionData>();
	for (const { itemIndex, error } of bad)
		out.set(itemIndex, failedItem(error, itemIndex, typedRequest(ctx, itemIndex)));
	let totalCredits = 0;
	let unknownItems = 0;
	for (const p of prepared) {
		const price = book.price(p);
		if (price.credits === null) unknownItems++;
		else totalCredits += price.credits;
		const json: IDataObject = {
			estimate: itemEstimate(price),
			credits: price.credits,
			basis: describeBasis(price),
			model: p.model.id,
			kind: p.body.kind,
			// The prompt too, so a Generate step after an approval can take the estimated items as they are.
			prompt: p.body.prompt,
			options: p.body.options,
			...p.extraJson,
		};
		out.set(p.itemIndex, { json, pairedItem: { item: p.itemIndex } });
	}
	const { credits: left, note } = await creditsLeft(ctx);
	const enough = left === null || (unknownItems > 0 && totalCredits <= left) ? null : totalCredits <= left;
	const summary: Totals & IDataObject = {
		totalCredits,
		unknownItems,
		creditsLeft: left,
		enough,
		...(bad.length ? { refusedItems: bad.length } : {}),
		...(note ? { creditsLeftNote: note } : {}),
	};
	const total = totalEstimate(summary);
	const items = itemsInInputOrder(out);
	if (ctx.getNodeParameter('estimateSummary', 0, 'lastItem') === 'everyItem') {
		for (const item of items) {
			item.json.estimate = item.json.estimate ? `${String(item.json.estimate)}. ${total}` : total;
			Object.assign(item.json, summary);
		}
		return items;
	}
	const last = { json: { estimate: total, summary: true, ...summary }, pairedItem: items.map((_, item) => ({ item })) };
	return withSameColumns([...items, last]);
}
