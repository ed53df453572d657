// Pause mode's spending cap on what the service really charged. The batch is planned before the pause at the
// predicted prices (run/spendingCap.ts capRefusalsBeforePause), but an API key is "billed … with the plan's
// limits and prices", which may be above the catalogue's. So every item is checked again just before it is sent:
// what the step spent before this batch, plus the real `cost` of every run this batch has sent (each submission's
// answer carries it), plus the item's predicted price scaled by what the plan charged so far for this batch's
// runs, must stay within the cap. The plan prices every run of the account, so what it charged for the runs
// already sent against what the catalogue asked is the best evidence of what it will charge for the next; a plan
// below the catalogue is not relied on (free runs, for one, are counted per day). Items go out one at a time, each
// after the answer of the one before, so the cap is passed by at most the price of one run whose price was not
// what it was predicted to be. The check depends only on the record saved before the pause and on the costs of
// the runs sent before the item, so every process that walks the batch decides each item the same way.
// Refunds of failed runs are not taken off (when a refund is seen depends on timing). Pure: no n8n calls.
import { CAP_ADVICE, capRefusalMessage } from '../run/spendingCap';
import type { Refusal } from '../run/runErrors';
import type { PauseState } from './pauseState';

/** The runs sent so far: what the plan charged for them, and what they were predicted to cost. */
function chargedSoFar(state: PauseState, costOf: (position: number) => number | undefined) {
	let charged = 0;
	let predicted = 0;
	let runs = 0;
	state.items.forEach((entry, position) => {
		const cost = costOf(position);
		if (cost === undefined || !entry.price) return;
		charged += cost;
		predicted += entry.price;
		runs++;
	});
	return { charged, predicted, runs, scale: predicted > 0 ? Math.max(1, charged / predicted) : 1 };
}

/** Credits the step has spent: before the batch, and the real cost of every run of it that is known. */
export function spentByBatch(state: PauseState, costOf: (position: number) => number | undefined): number {
	let spent = state.cap?.spentBefore ?? 0;
	state.items.forEach((_, position) => (spent += costOf(position) ?? 0));
	return spent;
}

/** An item's predicted price as the plan charges it so far. */
function scaledPrice(predicted: number, scale: number): number {
	// The epsilon keeps a product like 20 × 1.5000000001 from rounding up to a credit nobody charges.
	return Math.ceil(predicted * scale - 1e-6);
}

/**
 * What the step will have spent once every item still to be sent is sent at its scaled price: the total saved
 * with the execution before the pause, for later passes of this step (the resume calls cannot save it).
 */
export function expectedSpend(state: PauseState, costOf: (position: number) => number | undefined): number {
	const { scale } = chargedSoFar(state, costOf);
	let total = spentByBatch(state, costOf);
	state.items.forEach((entry, position) => {
		if (costOf(position) === undefined && !entry.refused && entry.price) total += scaledPrice(entry.price, scale);
	});
	return total;
}

/**
 * The cap's refusal of the item at `position` if sending it now could pass the cap, else undefined.
 * @param costOf the credits the run of an item cost, when that item's run is known (undefined: not sent)
 */
export function pauseCapRefusal(
	state: PauseState,
	position: number,
	costOf: (position: number) => number | undefined,
): Refusal | undefined {
	const { cap } = state;
	const predicted = state.items[position].price;
	if (!cap || predicted === undefined) return undefined;
	const sofar = chargedSoFar(state, costOf);
	const credits = scaledPrice(predicted, sofar.scale);
	const spent = spentByBatch(state, costOf);
	if (spent + credits <= cap.limit) return undefined;
	const runs = sofar.runs === 1 ? 'the run' : `the ${sofar.runs} runs`;
	const scaled =
		sofar.scale > 1
			? ` Your plan charged ${sofar.charged} credits for ${runs} this step sent, predicted at ${sofar.predicted} ` +
				`(catalogue or earlier prices), so this item's predicted ${predicted} credits count as ${credits}.`
			: '';
	return {
		message: capRefusalMessage({ cap: cap.limit, spent, price: { credits, basis: 'catalogue default' } }),
		description: `${CAP_ADVICE}${scaled}`,
	};
}
