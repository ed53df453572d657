// Pause mode's cap, planned at predicted prices; each item checked again before it is sent on the real costs and its
// price scaled by what the plan charged (≥ 1), so every process decides alike. Refunds not taken off (timing). Pure.
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunRequest } from '../run/runRequest';
import { addRunDetails, NOTHING_SENT, type Refusal } from '../run/runErrors';
import { scaledPrice } from '../run/priceBook';
import { CAP_ADVICE, capRefusalMessage, fitsUnderCap, type SpendingCap } from '../run/spendingCap';
import type { PauseState } from './pauseState';

/** The credits an item's run cost (undefined: not sent). */
type CostOf = (position: number) => number | undefined;

const UNKNOWN_IN_PAUSE =
	"Max Credits per Execution with Waiting → Pause: this run's price is not known in advance, so it cannot be " +
	'counted before the pause';

/**
 * Before the pause, in item order at the predicted prices: an item that would pass the cap is refused, the others
 * are counted in the saved total now (the resume calls can save nothing). An unknown price cannot be planned.
 */
export function capRefusalsBeforePause(node: INode, ready: RunRequest[], cap: SpendingCap, continueOnFail: boolean) {
	const spentBefore = cap.spent;
	const refusals = new Map<number, string>();
	const prices = ready.map((p) => cap.book.price(p));
	const unknown = prices.findIndex((price) => price.credits === null);
	if (unknown >= 0 && !continueOnFail) {
		const why = prices[unknown].why ?? 'unknown';
		const error = new NodeOperationError(node, `${UNKNOWN_IN_PAUSE} (item ${ready[unknown].itemIndex + 1}: ${why})`, {
			description:
				`${NOTHING_SENT}. Choose Waiting → Poll, which sends such a run alone and ` +
				'waits for its price, or remove the cap, or run this model with these options once so that its price is ' +
				"in your account's history.",
		});
		throw addRunDetails(error, { nothingCharged: true });
	}
	for (const [position, price] of prices.entries()) {
		if (price.credits === null) {
			refusals.set(position, `${UNKNOWN_IN_PAUSE}: ${price.why ?? 'no earlier run like it'}`);
		} else if (!fitsUnderCap(cap.cap, cap.spent, price.credits)) {
			refusals.set(position, capRefusalMessage({ cap: cap.cap, spent: cap.spent, price }, 'planned'));
		} else {
			cap.plan(price.credits);
		}
	}
	return { refusals, prices: prices.map((price) => price.credits ?? undefined), spentBefore };
}

/** What the step has spent (before the batch, and every known run's real cost), and what the plan charged so far. */
function soFar(state: PauseState, costOf: CostOf) {
	let spent = state.cap?.spentBefore ?? 0;
	let charged = 0;
	let predicted = 0;
	let runs = 0;
	state.items.forEach((entry, position) => {
		const cost = costOf(position);
		if (cost === undefined) return;
		spent += cost;
		// A run that cost this step nothing (made earlier, or free) says nothing of the plan's prices.
		if (!entry.price || !cost) return;
		charged += cost;
		predicted += entry.price;
		runs++;
	});
	return { spent, charged, predicted, runs, scale: predicted > 0 ? Math.max(1, charged / predicted) : 1 };
}

/** What the step will have spent once every item still to be sent is sent at its scaled price (saved at the pause). */
export function expectedSpend(state: PauseState, costOf: CostOf): number {
	const { spent, scale } = soFar(state, costOf);
	let total = spent;
	state.items.forEach((entry, position) => {
		if (costOf(position) === undefined && !entry.refused && entry.price) total += scaledPrice(entry.price, scale);
	});
	return total;
}

/**
 * The cap's refusal of the item at `position` if sending it now could pass the cap, else undefined. `mayBeSent`: an
 * item with no known cost that another process may have sent (or this one is sending). Those before `position` count
 * at their scaled price: processes send in input order, so two of them never each count the other's items as free.
 */
export function pauseCapRefusal(
	state: PauseState,
	position: number,
	costOf: CostOf,
	mayBeSent: (position: number) => boolean = () => false,
): Refusal | undefined {
	const { cap } = state;
	const predicted = state.items[position].price;
	if (!cap || predicted === undefined) return undefined;
	const sofar = soFar(state, costOf);
	const { scale } = sofar;
	let uncertain = 0;
	for (let p = 0; p < position; p++) {
		const price = state.items[p].price;
		if (price && costOf(p) === undefined && mayBeSent(p)) uncertain += scaledPrice(price, scale);
	}
	const spent = sofar.spent + uncertain;
	const credits = scaledPrice(predicted, scale);
	if (fitsUnderCap(cap.limit, spent, credits)) return undefined;
	const runs = sofar.runs === 1 ? 'the run' : `the ${sofar.runs} runs`;
	const scaled =
		scale > 1
			? ` Your plan charged ${sofar.charged} credits for ${runs} this step sent, predicted at ${sofar.predicted} ` +
				`(catalogue or earlier prices), so this item's predicted ${predicted} credits count as ${credits}.`
			: '';
	const maybe = uncertain
		? ` The ${uncertain} credits counted include earlier items another n8n process may have sent.`
		: '';
	return {
		message: capRefusalMessage(
			{ cap: cap.limit, spent, price: { credits, basis: 'catalogue default' } },
			uncertain ? 'spent or possibly spent' : undefined,
		),
		description: `${CAP_ADVICE}${scaled}${maybe}`,
	};
}
