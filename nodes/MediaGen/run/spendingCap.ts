// Max Credits per Execution: runs count as the service accepts them (less refunds), a run whose price would cross the
// cap is refused. Submissions go one at a time, each awaiting its price, so a run of unknown price goes alone.
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { priceBookFor, type Price, type PriceBook } from './priceBook';
import { mayBeCharged, refuse, type LedgerItem } from './ledger';
import { addRunDetails, NOT_SENT_ITEM, NOTHING_SENT } from './runErrors';
import type { RunRequest } from './runRequest';

interface CapRefusal {
	cap: number;
	spent: number;
	price: Price; // credits null: unknown, refused because nothing was left under the cap
}

/** In the words of the field's help and of every refusal. */
/** What the cap prices: a request as the price book reads it. */
type Priced = Parameters<PriceBook['price']>[0];

const CAP_BOUND =
	'A run whose price cannot be predicted (see Estimate Cost) is sent only while credits are left under the cap, ' +
	'and alone, so the cap can be passed by at most the price of that one run.';

/** The errorCode of an item the cap refused (its hint reads it: runOutput.ts). */
export const CAP_CODE = 'spending_cap';

/** The total's key in the node's context data, saved with the execution: every pass of the step counts it. */
export const CAP_TOTAL_KEY = 'mediaGenCapTotal';

/**
 * Totals of steps n8n runs without execution data (an MCP client's tool calls), kept a day. Safe with several n8n
 * processes: such calls have no execution to share, so each process caps the calls it runs.
 */
const unsavedTotals = new Map<string, { store: IDataObject; at: number }>();
const FORGET_AFTER_MS = 24 * 3600_000;

/** The step's node context data, or its unsaved store when it has no execution data. */
function capStore(ctx: IExecuteFunctions): IDataObject {
	const executionId = ctx.getExecutionId();
	try {
		if (executionId) return ctx.getContext('node');
	} catch {
		// no execution data to save it with
	}
	const now = Date.now();
	for (const [k, v] of unsavedTotals) if (now - v.at > FORGET_AFTER_MS) unsavedTotals.delete(k);
	const node = ctx.getNode();
	const key = `${executionId ?? 'manual'}|${node.id ?? node.name}`;
	const store = unsavedTotals.get(key)?.store ?? {};
	unsavedTotals.set(key, { store, at: now });
	return store;
}

/**
 * The cap's one rule, in both waiting modes: a run fits while what this step has spent plus its price stays within
 * the cap; a run whose price is not known in advance (null) only while credits are left under it.
 */
export function fitsUnderCap(cap: number, spent: number, credits: number | null): boolean {
	return credits === null ? spent < cap : spent + credits <= cap;
}

export class SpendingCap {
	private queue: Promise<unknown> = Promise.resolve();

	/** `counted`: runs already added, since a repeated request key (a retry) returns the same run, charged once. */
	private readonly total: { spent: number; counted: string[] };

	/** Earlier runs a typed key gave back in this step: paid for before, they cost it nothing. */
	private readonly returned = new Set<string>();

	constructor(
		readonly cap: number,
		store: IDataObject,
		readonly book: PriceBook,
	) {
		const saved = store[CAP_TOTAL_KEY] as { spent?: unknown; counted?: unknown } | undefined;
		this.total = {
			spent: Number(saved?.spent) || 0,
			counted: Array.isArray(saved?.counted) ? saved.counted.map(String) : [],
		};
		store[CAP_TOTAL_KEY] = this.total as unknown as IDataObject;
	}

	get spent(): number {
		return this.total.spent;
	}

	private priceOf(request: Priced): Price {
		return this.book.price(request, this.returned);
	}

	/** Items whose typed key may return a run made earlier first, the others after them, each in item order. */
	sendingOrder<T extends Priced>(ready: T[]): T[] {
		const first = new Set(ready.filter((r) => this.book.twinOf(r, this.returned) !== undefined));
		return [...first, ...ready.filter((r) => !first.has(r))];
	}

	/** The sum of the prices known in advance, when it alone (with what is spent) would cross the cap. */
	firstCertainOverrun(requests: Priced[]): { total: number; count: number } | undefined {
		const known = requests.map((r) => this.priceOf(r).credits).filter((c): c is number => c !== null);
		const total = known.reduce((sum, c) => sum + c, 0);
		return fitsUnderCap(this.cap, this.spent, total) ? undefined : { total, count: known.length };
	}

	/** Sends the item if its run fits under the cap, one item at a time, and counts what the ledger then says. */
	async send(item: LedgerItem, request: Priced, send: () => Promise<void>): Promise<CapRefusal | undefined> {
		const turn = this.queue.then(async () => {
			const price = this.priceOf(request);
			if (!fitsUnderCap(this.cap, this.spent, price.credits)) return { cap: this.cap, spent: this.spent, price };
			await send();
			const { run } = item;
			if (run && request.typedKey && this.book.earlierRunsLike(request).includes(run.id)) this.returned.add(run.id);
			// A run an earlier execution made with this key was charged then: it costs this execution nothing.
			else if (run && !item.earlier) this.count(run.id, Number(run.cost) || 0);
			// A lost answer counts at the predicted price, else as all that is left (no second unknown price goes).
			else if (!run && mayBeCharged(item))
				this.count(`key:${item.key}`, price.credits ?? Math.max(0, this.cap - this.spent));
			if (run) this.book.learn(request, run);
			return undefined;
		});
		this.queue = turn.catch(() => undefined);
		return await turn;
	}

	private count(id: string, credits: number): void {
		if (this.total.counted.includes(id)) return;
		this.total.spent += credits;
		this.total.counted.push(id);
	}

	/** A failed run is refunded by the service: its cost no longer counts. */
	refund(run: { id: string; cost: number }): void {
		const at = this.total.counted.indexOf(run.id);
		if (at < 0) return;
		this.total.counted.splice(at, 1);
		this.total.spent = Math.max(0, this.total.spent - (Number(run.cost) || 0));
	}

	/**
	 * Pause mode: the runs sent after the pause count now at their predicted prices, since the resume calls cannot
	 * save anything with the execution (a failed one's refund is not taken off).
	 */
	plan(credits: number): void {
		this.total.spent += credits;
	}
}

export function capRefusalMessage(refusal: CapRefusal, spentWord = 'spent'): string {
	const { cap, spent, price } = refusal;
	const already = `${spent} credit${spent === 1 ? ' is' : 's are'} already ${spentWord} by this step in this execution`;
	if (price.credits !== null)
		return `Max Credits per Execution (${cap}) reached: this run would cost ${price.credits} credits and ${already}`;
	return (
		`Max Credits per Execution (${cap}) reached: ${already}, and this run's price is not known in advance ` +
		`(${price.why ?? 'no earlier run like it'})`
	);
}

export const CAP_ADVICE = `${NOT_SENT_ITEM}. Raise the cap, or split the batch. ${CAP_BOUND}`;

/** The batch's cap (undefined: none). Without Continue On Fail, known prices that alone cross it refuse the batch. */
export async function spendingCapFor(ctx: IExecuteFunctions, ready: RunRequest[]): Promise<SpendingCap | undefined> {
	const capValue = ready.find((p) => p.maxCredits !== undefined)?.maxCredits;
	if (capValue === undefined) return undefined;
	const typed = ready.some((p) => p.typedKey);
	const book = await priceBookFor(ctx, ready, true, typed);
	const cap = new SpendingCap(capValue, capStore(ctx), book);
	const overrun = ctx.continueOnFail() ? undefined : cap.firstCertainOverrun(ready);
	if (!overrun) return cap;
	const spent = cap.spent ? ` (${cap.spent} already spent by this step in this execution)` : '';
	const runs = overrun.count === 1 ? 'this run would cost' : `these ${overrun.count} runs would cost`;
	const error = new NodeOperationError(
		ctx.getNode(),
		`Max Credits per Execution is ${cap.cap}: ${runs} ${overrun.total} credits at the prices known in advance${spent}`,
		{ description: `${NOTHING_SENT}. Raise the cap, send fewer items, or pick a cheaper model. ${CAP_BOUND}` },
	);
	throw addRunDetails(error, { errorCode: CAP_CODE, nothingCharged: true });
}

/** Sends the item under the cap (if any); the cap's refusal is the item's (nothing is sent then). */
export async function sendUnderCap(
	cap: SpendingCap | undefined,
	node: INode,
	p: RunRequest,
	item: LedgerItem,
	send: () => Promise<void>,
): Promise<void> {
	const refusal = cap ? await cap.send(item, p, send) : await send();
	if (!refusal) return;
	const error = new NodeOperationError(node, capRefusalMessage(refusal), {
		description: CAP_ADVICE,
		itemIndex: p.itemIndex,
	});
	refuse(item, addRunDetails(error, { errorCode: CAP_CODE, nothingCharged: true }));
}
