// A run's predicted price (spending cap, Estimate Cost). The spec prices by model, resolution, length and audio: the
// catalogue's price at the defaults, else what this account paid for the same (history or this step), else unknown.
import type { IExecuteFunctions } from 'n8n-workflow';

import type { CatalogueModel, RunRecord } from '../../shared/records';
import { identityOf } from '../../shared/transport';
import { getModels } from '../catalogue/catalogue';
import { effectiveOptions } from '../catalogue/modelOptions';
import type { RunRequest } from './runRequest';
import { listRuns } from './waitForRun';

export interface Price {
	/** null: not known before the service accepts the run. */
	credits: number | null;
	basis: 'catalogue default' | 'earlier run' | 'unknown';
	runId?: string; // basis 'earlier run'
	why?: string; // basis 'unknown'
}

type Priced = Pick<RunRequest, 'model' | 'body' | 'audio'> & Partial<Pick<RunRequest, 'typedKey'>>;

const optionsOf = (request: Priced) => (request.body.options ?? {}) as Record<string, unknown>;

const isTalkingAvatar = (model: CatalogueModel) => Array.isArray(model.inputs) && model.inputs.includes('audio');

/** The price-setting options (the spec's: resolution, length, audio) as the service will use them. */
export function priceOptions(model: CatalogueModel, options: Record<string, unknown>): Record<string, unknown> {
	// Music is one price a run in every mode (spec "Songs"), so no option changes it.
	if (model.kind === 'music') return {};
	const effective = effectiveOptions(model, options).options;
	const set = ['resolution', 'duration', 'audio'].filter((k) => effective[k] !== undefined && effective[k] !== null);
	return Object.fromEntries(set.map((key) => [key, effective[key]]));
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
	return [...Object.keys(a), ...Object.keys(b)].every((k) => String(a[k]) === String(b[k]));
}

export function isAtDefaults(model: CatalogueModel, options: Record<string, unknown>): boolean {
	return sameValues(priceOptions(model, options), priceOptions(model, {}));
}

interface PricedRun {
	id: string;
	model: string;
	options: Record<string, unknown>;
	cost: number;
	audioUrl?: string;
}

interface History {
	runs?: RunRecord[]; // newest first; undefined when not read
	note: string; // why it was not read, or how much was (for the reasons given)
}

const pricedRun = (r: RunRecord): PricedRun => ({
	id: r.id,
	model: r.model,
	options: (r.options ?? {}) as Record<string, unknown>,
	cost: Number(r.cost) || 0,
});

export class PriceBook {
	/** Runs accepted in this execution, newest first: they count before the history. */
	private readonly accepted: PricedRun[] = [];

	constructor(
		private readonly models: CatalogueModel[],
		private readonly history: History,
	) {}

	/**
	 * `givenBack`: earlier runs a typed key already gave back in this step. An item whose typed key may return a run
	 * made earlier costs nothing or a new run: unknown, so under a cap it goes only while credits are left (else a
	 * step run again as advised could never get its run back).
	 */
	price(request: Priced, givenBack?: ReadonlySet<string>): Price {
		const price = this.listPrice(request);
		const twin = givenBack && this.twinOf(request, givenBack);
		if (!twin || price.credits === null) return price;
		const why =
			`its Request Key may return run ${twin}, made and paid for earlier, or start a new run ` +
			`at ${price.credits} credits`;
		return { credits: null, basis: 'unknown', why };
	}

	/** An earlier run like the request that its typed key may give back (earlierRunsLike), not given back yet. */
	twinOf(request: Priced, givenBack: ReadonlySet<string>): string | undefined {
		if (!request.typedKey) return undefined;
		return this.earlierRunsLike(request).find((id) => !givenBack.has(id));
	}

	private listPrice(request: Priced): Price {
		const { model, audio } = request;
		if (isTalkingAvatar(model) && audio) {
			// Only an address typed by the user is known before submission.
			const url = 'url' in audio ? audio.url : undefined;
			const earlier = this.accepted.find((r) => url && r.audioUrl === url && this.same(r, request));
			if (earlier) return { credits: earlier.cost, basis: 'earlier run', runId: earlier.id };
			const why =
				`${model.name} is a talking-avatar model, priced on the driving audio's real length, which only the ` +
				'service measures when the run is sent';
			return { credits: null, basis: 'unknown', why };
		}
		// A run of this execution with the same model and price options was charged its real price: the next one is too,
		// whatever the catalogue says (soak seed 20261129 path 2063: prices twice the catalogue's).
		const accepted = this.accepted.find((r) => r.cost > 0 && this.same(r, request));
		if (accepted) return { credits: accepted.cost, basis: 'earlier run', runId: accepted.id };
		if (isAtDefaults(model, optionsOf(request)))
			return { credits: Number(model.credits_at_defaults) || 0, basis: 'catalogue default' };
		const earlier = [...this.accepted, ...this.historyRuns()].find((r) => r.cost > 0 && this.same(r, request));
		if (earlier) return { credits: earlier.cost, basis: 'earlier run', runId: earlier.id };
		const words = Object.entries(priceOptions(model, optionsOf(request))).map(([k, v]) => `${k} ${String(v)}`);
		const options = words.length ? words.join(', ') : 'its default options';
		const why = `this account has no earlier run of ${model.id} with ${options} (${this.history.note})`;
		return { credits: null, basis: 'unknown', why };
	}

	learn(request: Priced, run: { id: string; cost: number }): void {
		const cost = Number(run.cost);
		if (!Number.isFinite(cost) || cost <= 0) return; // a free run says nothing of the price
		const audioUrl = request.body.audioUrl === undefined ? undefined : String(request.body.audioUrl);
		this.accepted.unshift({ id: run.id, model: request.model.id, options: optionsOf(request), cost, audioUrl });
	}

	/** Same model, same price options. */
	private same(run: PricedRun, request: Priced): boolean {
		if (run.model !== request.model.id) return false;
		const model = this.models.find((m) => m.id === run.model) ?? request.model;
		return sameValues(priceOptions(model, run.options), priceOptions(request.model, optionsOf(request)));
	}

	/** The account's earlier charged runs (not failed or canceled) of the same model, prompt and price options. */
	earlierRunsLike(request: Priced): string[] {
		return (this.history.runs ?? [])
			.filter((r) => Number(r.cost) > 0 && !['FAILED', 'CANCELED'].includes(r.status))
			.filter((r) => r.prompt === request.body.prompt && this.same(pricedRun(r), request))
			.map((r) => r.id);
	}

	private historyRuns(): PricedRun[] {
		// Talking-avatar runs in the history do not say which audio they had, so they price nothing.
		const avatars = new Set(this.models.filter(isTalkingAvatar).map((m) => m.id));
		return (this.history.runs ?? []).filter((r) => !avatars.has(r.model)).map(pricedRun);
	}
}

/**
 * Pause mode's prediction once runs came back: the predicted price times what the plan charged for this step's runs
 * over what they were predicted at (never below 1), so every n8n process predicts alike.
 */
export function scaledPrice(predicted: number, scale: number): number {
	// The epsilon keeps a product like 20 × 1.5000000001 from rounding up to a credit nobody charges.
	return Math.ceil(predicted * scale - 1e-6);
}

/** The basis as Estimate Cost shows it, in a buyer's words (recipes look for the "unknown" start). */
export function describeBasis(price: Price): string {
	if (price.basis === 'catalogue default') return 'list price';
	if (price.basis === 'earlier run') return `what your last identical run cost (run ${price.runId})`;
	return `unknown: ${price.why}`;
}

/** Pages of 100 runs read at most: the newest 300 runs. */
export const HISTORY_PAGES = 3;

async function readHistory(ctx: IExecuteFunctions): Promise<History> {
	const runs: RunRecord[] = [];
	try {
		await listRuns(ctx, runs, HISTORY_PAGES, { retryTransient: 2 });
	} catch (error) {
		const reason = (error as Error)?.message ?? String(error);
		return { runs: runs.length ? runs : undefined, note: `its run history could not be read: ${reason}` };
	}
	return { runs, note: `looked through its newest ${runs.length} run${runs.length === 1 ? '' : 's'}` };
}

/**
 * The price book for a batch. The history is read only when a price needs it, and never for an anonymous ID
 * unless `readAnonymous` (a first request with a new anonymous ID opens one of the address's free wallets).
 */
export async function priceBookFor(
	ctx: IExecuteFunctions,
	requests: Priced[],
	readAnonymous = true,
	historyNeeded = false,
): Promise<PriceBook> {
	const models: CatalogueModel[] = await getModels(ctx).catch(() => requests.map((r) => r.model));
	const needed =
		historyNeeded || requests.some((r) => !isTalkingAvatar(r.model) && !isAtDefaults(r.model, optionsOf(r)));
	if (!needed) return new PriceBook(models, { note: 'its run history was not needed' });
	if ((await identityOf(ctx)).kind === 'anonymous' && !readAnonymous) {
		const note = 'the run history of an anonymous ID is not read, so that no free wallet is opened for it';
		return new PriceBook(models, { note });
	}
	return new PriceBook(models, await readHistory(ctx));
}
