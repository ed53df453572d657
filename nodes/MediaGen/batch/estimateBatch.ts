// Estimate Cost (Generation and App): every item read and checked exactly as Generate or Run Look would (their own
// preparation, the same refusals), priced by the price book, and nothing submitted. One summary follows: the total
// of the known prices, how many are unknown, the credits left (GET /me) and whether they are enough. Every item opens
// with `estimate`, the same in words (estimateWords.ts), and all items have the same fields, so n8n's Table view
// shows the total in its first column and no "undefined" cell.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { identityProblem } from '../../shared/answers';
import { apiRequest, identityOf } from '../../shared/transport';
import { failedItem, prepareItems, typedRequest, type PrepareItem } from './prepareItems';
import { itemsInInputOrder, withSameColumns } from '../run/runOutput';
import { describeBasis, HISTORY_PAGES, priceBookFor } from '../run/priceBook';
import { itemEstimate, totalEstimate } from './estimateWords';

/** Where the summary goes: its own item after the estimates, or on every estimate. */
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
		'Where totalCredits, unknownItems, creditsLeft and enough go. Estimating is free: nothing is submitted and ' +
		`nothing is charged; it reads the model list, at most ${HISTORY_PAGES} pages of your run history and your balance.`,
};

interface Summary extends IDataObject {
	totalCredits: number;
	unknownItems: number;
	creditsLeft: number | null;
	enough: boolean | null;
}

/**
 * The balance, or null with why. An anonymous ID's balance is not read: the first request with a new ID opens one
 * of the address's 3 free wallets a day, and an estimate must not spend one.
 */
async function creditsLeft(ctx: IExecuteFunctions): Promise<{ credits: number | null; note?: string }> {
	if ((await identityOf(ctx)).kind === 'anonymous') {
		return { credits: null, note: 'not read for an anonymous ID: reading it would open a free wallet for a new ID' };
	}
	const me = await apiRequest<{ credits?: number }>(ctx, {
		method: 'GET',
		path: '/me',
		retryTransient: 2,
		expect: identityProblem,
	});
	const credits = Number(me.body?.credits);
	return Number.isFinite(credits) ? { credits } : { credits: null, note: 'the service did not give a balance' };
}

function enoughFor(total: number, unknown: number, left: number | null): boolean | null {
	if (left === null) return null;
	if (total > left) return false;
	return unknown > 0 ? null : true;
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
	const balance = await creditsLeft(ctx);
	const summary: Summary = {
		totalCredits,
		unknownItems,
		creditsLeft: balance.credits,
		enough: enoughFor(totalCredits, unknownItems, balance.credits),
		...(bad.length ? { refusedItems: bad.length } : {}),
		...(balance.note ? { creditsLeftNote: balance.note } : {}),
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
