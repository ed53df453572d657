// "Max Credits per Execution": adds up the cost of runs as the service accepts them (less refunds of
// failed runs) and refuses a submission whose predicted price would take the total over the cap.
// A price is predicted from a run already accepted with the same model and options, else from the
// catalogue's price at default options. Submissions under a cap go one at a time, so each prediction
// sees every price accepted before it. The total is kept per execution and node, across loop passes.

export interface PriceQuote {
	/** Same model and price-relevant options: runs with the same signature cost the same. */
	signature: string;
	/** The catalogue's price at default options. */
	catalogueCredits: number;
	/** Whether the options are the model's defaults, so the catalogue price is the real one. */
	atDefaults: boolean;
}

export interface CapRefusal {
	cap: number;
	spent: number;
	estimate: number;
}

interface Total {
	spent: number;
	at: number;
	/** Runs already added: a repeated request key (a retry) returns the same run, charged once. */
	counted: Set<string>;
}

const totals = new Map<string, Total>();
const FORGET_AFTER_MS = 24 * 3600_000;

function totalFor(key: string): Total {
	const now = Date.now();
	for (const [k, v] of totals) if (now - v.at > FORGET_AFTER_MS) totals.delete(k);
	let entry = totals.get(key);
	if (!entry) {
		entry = { spent: 0, at: now, counted: new Set() };
		totals.set(key, entry);
	}
	entry.at = now;
	return entry;
}

export class SpendingCap {
	private readonly known = new Map<string, number>();

	private queue: Promise<unknown> = Promise.resolve();

	private readonly total: Total;

	/** @param key the execution and node the cap applies to */
	constructor(
		readonly cap: number,
		key: string,
	) {
		this.total = totalFor(key);
	}

	get spent(): number {
		return this.total.spent;
	}

	estimate(quote: PriceQuote): number {
		return this.known.get(quote.signature) ?? quote.catalogueCredits;
	}

	/** The first item whose exactly known price (catalogue price at defaults) would cross the cap, summed in order. */
	firstCertainOverrun(quotes: PriceQuote[]): { total: number; count: number } | undefined {
		const certain = quotes.filter((q) => q.atDefaults);
		const total = certain.reduce((sum, q) => sum + q.catalogueCredits, 0);
		return this.spent + total > this.cap ? { total, count: certain.length } : undefined;
	}

	/**
	 * Runs `submit` if the predicted price fits under the cap, one submission at a time; records the
	 * accepted cost. Returns the refusal instead when it would not fit.
	 */
	async submit<T extends { cost: number; id: string }>(
		quote: PriceQuote,
		submit: () => Promise<T>,
	): Promise<T | CapRefusal> {
		const turn = this.queue.then(async () => {
			const estimate = this.estimate(quote);
			if (this.spent + estimate > this.cap) return { cap: this.cap, spent: this.spent, estimate } as CapRefusal;
			const run = await submit();
			const cost = Number(run.cost) || 0;
			if (!this.total.counted.has(run.id)) this.total.spent += cost;
			this.total.counted.add(run.id);
			this.known.set(quote.signature, cost);
			return run;
		});
		this.queue = turn.catch(() => undefined);
		return await turn;
	}

	/** A failed run is refunded by the service: its cost no longer counts. */
	refund(run: { id: string; cost: number }): void {
		if (!this.total.counted.delete(run.id)) return;
		this.total.spent = Math.max(0, this.total.spent - (Number(run.cost) || 0));
	}
}

export function isCapRefusal(value: unknown): value is CapRefusal {
	return typeof value === 'object' && value !== null && 'estimate' in value && 'cap' in value && !('id' in value);
}
