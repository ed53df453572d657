// Estimate Cost's `estimate` field: one line a person reads at a glance in n8n's Table view, first column of every
// item ("5 credits (list price)", "Total: 15 credits; 4,970 left; enough"). The numbers stay in their own fields
// (credits, totalCredits, creditsLeft, enough) for expressions. Pure: no n8n.
import type { Price } from '../run/priceBook';

/** What the summary says, as estimateBatch counts it. */
export interface Totals {
	totalCredits: number;
	unknownItems: number;
	creditsLeft: number | null;
	enough: boolean | null;
	refusedItems?: number;
}

const number = (n: number) => n.toLocaleString('en-US');
const credits = (n: number) => `${number(n)} ${n === 1 ? 'credit' : 'credits'}`;
const count = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;

/** One item's price: "5 credits (list price)", "180 credits (your last identical run)", "price unknown". */
export function itemEstimate(price: Price): string {
	if (price.credits === null) return 'price unknown';
	return `${credits(price.credits)} (${price.basis === 'earlier run' ? 'your last identical run' : 'list price'})`;
}

/** The batch: "Total: 15 credits; 4,970 left; enough", with unknown prices and refused items when there are any. */
export function totalEstimate(totals: Totals): string {
	const { totalCredits, unknownItems, creditsLeft, enough, refusedItems } = totals;
	const parts = [
		`Total: ${credits(totalCredits)}` + (unknownItems ? ` + ${count(unknownItems, 'price', 'prices')} unknown` : ''),
		creditsLeft === null ? 'credits left not read' : `${number(creditsLeft)} left`,
	];
	if (enough === true) parts.push('enough');
	else if (enough === false) parts.push('not enough');
	else if (creditsLeft !== null) parts.push('enough for the known prices');
	if (refusedItems) parts.push(`${count(refusedItems, 'item', 'items')} refused`);
	return parts.join('; ');
}
