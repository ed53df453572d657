// "Max Credits per Execution": adds up the cost of runs as the service accepts them (less refunds of
// failed runs) and refuses a submission whose predicted price would take the total over the cap.
// A price is predicted from a run already accepted with the same model and options, else from the
// catalogue's price at default options. Submissions under a cap go one at a time, so each prediction
// sees every price accepted before it. The total is kept per execution and node, across loop passes, in
// the node's context data (saved with the execution), never in this process's memory.
import type { IDataObject } from 'n8n-workflow';

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

/** Where the total lives in the node's context data, which n8n saves with the execution. */
export const CAP_TOTAL_KEY = 'mediaGenCapTotal';

interface Total {
	spent: number;
	/** Runs already added: a repeated request key (a retry) returns the same run, charged once. */
	counted: string[];
}

/**
 * The execution's total so far, read from (and kept in) the node's context data: n8n saves it with the
 * execution, so a later pass counts it wherever that runs (after a pause, on another worker, after a restart).
 */
function totalIn(store: IDataObject): Total {
	const saved = store[CAP_TOTAL_KEY] as Partial<Total> | undefined;
	const total: Total = {
		spent: Number(saved?.spent) || 0,
		counted: Array.isArray(saved?.counted) ? saved.counted.map(String) : [],
	};
	store[CAP_TOTAL_KEY] = total as unknown as IDataObject;
	return total;
}

/** Steps without execution data (an MCP client's tool calls): their total, kept a day in this process. */
const unsavedTotals = new Map<string, { store: IDataObject; at: number }>();
const FORGET_AFTER_MS = 24 * 3600_000;

function unsavedStore(key: string): IDataObject {
	const now = Date.now();
	for (const [k, v] of unsavedTotals) if (now - v.at > FORGET_AFTER_MS) unsavedTotals.delete(k);
	const entry = unsavedTotals.get(key) ?? { store: {}, at: now };
	entry.at = now;
	unsavedTotals.set(key, entry);
	return entry.store;
}

/**
 * Where a step's total is kept: in the node's context data, saved with the execution. A tool call that n8n
 * runs without execution data (an MCP client's calls) has none: the calls of that node share a total in this
 * process (nothing else belongs to them all).
 */
export function capStore(executionId: string | undefined, nodeId: string, nodeContext: () => IDataObject): IDataObject {
	try {
		if (executionId) return nodeContext();
	} catch {
		// no execution data to save it with
	}
	return unsavedStore(`${executionId ?? 'manual'}|${nodeId}`);
}

export class SpendingCap {
	private readonly known = new Map<string, number>();

	private queue: Promise<unknown> = Promise.resolve();

	private readonly total: Total;

	/** @param store the node's context data in this execution (`getContext('node')`) */
	constructor(
		readonly cap: number,
		store: IDataObject,
	) {
		this.total = totalIn(store);
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
			if (!this.total.counted.includes(run.id)) {
				this.total.spent += cost;
				this.total.counted.push(run.id);
			}
			this.known.set(quote.signature, cost);
			return run;
		});
		this.queue = turn.catch(() => undefined);
		return await turn;
	}

	/** A failed run is refunded by the service: its cost no longer counts. */
	refund(run: { id: string; cost: number }): void {
		const at = this.total.counted.indexOf(run.id);
		if (at < 0) return;
		this.total.counted.splice(at, 1);
		this.total.spent = Math.max(0, this.total.spent - (Number(run.cost) || 0));
	}

	/**
	 * Pause mode: the runs the batch will send after the pause are counted now at their predicted prices,
	 * because the resume calls cannot save anything with the execution (a failed one's refund is not taken off).
	 */
	plan(credits: number): void {
		this.total.spent += credits;
	}
}

export function isCapRefusal(value: unknown): value is CapRefusal {
	return typeof value === 'object' && value !== null && 'estimate' in value && 'cap' in value && !('id' in value);
}
