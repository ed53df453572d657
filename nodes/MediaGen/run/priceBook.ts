// The one place that predicts what a run will cost, for the spending cap and for Generation → Estimate Cost.
// The spec fixes a run's price at submission from its model, resolution, length and audio, so:
//   1. options whose resolution, length and sound are the model's defaults cost the catalogue's price;
//   2. otherwise the price is what this account was charged for the same model and those options, found in its
//      run history (GET /generations, at most HISTORY_PAGES pages, read once per execution) or among the runs this
//      step already sent;
//   3. otherwise it is unknown, and the price says why.
// Talking-avatar runs are priced on the driving audio's real length, which only the service measures: they are
// known only from an earlier run with the same audio address. A history that cannot be read is not an error: the
// prices it would have given are unknown, and say why.
import type { IExecuteFunctions } from 'n8n-workflow';

import { generationListProblem } from '../../shared/answers';
import type { CatalogueModel, RunRecord } from '../../shared/records';
import { apiRequest, identityOf } from '../../shared/transport';
import { getModels } from '../catalogue/catalogue';
import { effectiveOptions } from '../catalogue/modelOptions';
import type { RunRequest } from './runRequest';

/** The options the spec names as setting the price (resolution, length, audio). */
export const PRICE_OPTIONS = ['resolution', 'duration', 'audio'] as const;

export type PriceBasis = 'catalogue default' | 'earlier run' | 'unknown';

export interface Price {
	/** Credits, or null when they cannot be known before the service accepts the run. */
	credits: number | null;
	basis: PriceBasis;
	/** The earlier run the price comes from (basis 'earlier run'). */
	runId?: string;
	/** Why the price is unknown (basis 'unknown'). */
	why?: string;
}

/** What a price depends on: the model, the options sent, and the driving audio if any. */
export type Priced = Pick<RunRequest, 'model' | 'body' | 'audio'>;

/** The options a request sends; options left at "Model Default" are simply absent. */
function optionsOf(request: Priced): Record<string, unknown> {
	return (request.body.options ?? {}) as Record<string, unknown>;
}

/** The price-setting options as the service will use them (effectiveOptions: an option left out is the default). */
export function priceOptions(model: CatalogueModel, options: Record<string, unknown>): Record<string, unknown> {
	// Music is one price a run in every mode (spec "Songs"), so no option changes it.
	if (model.kind === 'music') return {};
	const effective = effectiveOptions(model, options).options;
	const set = PRICE_OPTIONS.filter((key) => effective[key] !== undefined && effective[key] !== null);
	return Object.fromEntries(set.map((key) => [key, effective[key]]));
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
	const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
	return [...keys].every((k) => String(a[k]) === String(b[k]));
}

/** Whether the options cost the catalogue's price: resolution, length and sound at the model's defaults. */
export function isAtDefaults(model: CatalogueModel, options: Record<string, unknown>): boolean {
	return sameValues(priceOptions(model, options), priceOptions(model, {}));
}

export function isTalkingAvatar(model: CatalogueModel): boolean {
	return Array.isArray(model.inputs) && model.inputs.includes('audio');
}

/** The price-setting options in words, for a reason a person reads ("resolution 1080p, duration 10, audio true"). */
export function describePriceOptions(model: CatalogueModel, options: Record<string, unknown>): string {
	const effective = priceOptions(model, options);
	const words = Object.entries(effective).map(([k, v]) => `${k} ${String(v)}`);
	return words.length ? words.join(', ') : 'its default options';
}

/** A run this step knows the price of: from the history, or accepted in this execution. */
interface KnownRun {
	id: string;
	model: string;
	options: Record<string, unknown>;
	cost: number;
	audioUrl?: string;
}

export interface HistoryState {
	/** The account's runs, newest first; undefined when the history was not read. */
	runs?: RunRecord[];
	/** Why the history was not read, or how much of it was (for reasons). */
	note: string;
}

export class PriceBook {
	/** Runs accepted in this execution, newest first: they count before the history. */
	private readonly accepted: KnownRun[] = [];

	constructor(
		private readonly models: CatalogueModel[],
		private readonly history: HistoryState,
	) {}

	/** The predicted price of one run. */
	price(request: Priced): Price {
		const { model } = request;
		const options = optionsOf(request);
		if (isTalkingAvatar(model) && request.audio) {
			// Only an address typed by the user is known before submission.
			const audioUrl = 'url' in request.audio ? request.audio.url : undefined;
			const earlier = audioUrl
				? this.accepted.find((r) => r.model === model.id && r.audioUrl === audioUrl && this.same(r, request))
				: undefined;
			if (earlier) return { credits: earlier.cost, basis: 'earlier run', runId: earlier.id };
			return {
				credits: null,
				basis: 'unknown',
				why:
					`${model.name} is a talking-avatar model, priced on the driving audio's real length, which only the ` +
					'service measures when the run is sent',
			};
		}
		if (isAtDefaults(model, options)) {
			return { credits: Number(model.credits_at_defaults) || 0, basis: 'catalogue default' };
		}
		const earlier = [...this.accepted, ...this.historyRuns()].find(
			(r) => r.model === model.id && r.cost > 0 && this.same(r, request),
		);
		if (earlier) return { credits: earlier.cost, basis: 'earlier run', runId: earlier.id };
		return {
			credits: null,
			basis: 'unknown',
			why:
				`this account has no earlier run of ${model.id} with ${describePriceOptions(model, options)}` +
				` (${this.history.note})`,
		};
	}

	/** Records a run the service accepted for `request` (its body as sent): later runs like it cost the same. */
	learn(request: Priced, run: { id: string; cost: number }): void {
		const cost = Number(run.cost);
		if (!Number.isFinite(cost) || cost <= 0) return; // a free run says nothing of the price
		const audioUrl = request.body.audioUrl === undefined ? undefined : String(request.body.audioUrl);
		this.accepted.unshift({ id: run.id, model: request.model.id, options: optionsOf(request), cost, audioUrl });
	}

	private same(run: KnownRun, request: Priced): boolean {
		const model = this.models.find((m) => m.id === run.model) ?? request.model;
		return sameValues(priceOptions(model, run.options), priceOptions(request.model, optionsOf(request)));
	}

	private historyRuns(): KnownRun[] {
		// Talking-avatar runs in the history do not say which audio they had, so they price nothing.
		const avatars = new Set(this.models.filter(isTalkingAvatar).map((m) => m.id));
		return (this.history.runs ?? [])
			.filter((r) => !avatars.has(r.model))
			.map((r) => ({
				id: r.id,
				model: r.model,
				options: (r.options ?? {}) as Record<string, unknown>,
				cost: Number(r.cost) || 0,
			}));
	}
}

/**
 * The basis as Estimate Cost shows it, in a buyer's words: "list price", "what your last identical run cost (run
 * <id>)" or "unknown: <why>" (recipes look for the "unknown" start).
 */
export function describeBasis(price: Price): string {
	if (price.basis === 'catalogue default') return 'list price';
	if (price.basis === 'earlier run') return `what your last identical run cost (run ${price.runId})`;
	return `unknown: ${price.why}`;
}

/** Pages of 100 runs read at most: the newest 300 runs. */
export const HISTORY_PAGES = 3;
const PAGE_SIZE = 100;
/** How long a history read serves the same execution (a loop's later passes, a batch's items). */
const KEEP_MS = 10 * 60_000;

const readThisExecution = new Map<string, { at: number; value: Promise<HistoryState> }>();

async function readPages(ctx: IExecuteFunctions): Promise<HistoryState> {
	const runs: RunRecord[] = [];
	let before: number | null | undefined;
	let pages = 0;
	try {
		do {
			const qs: Record<string, number> = { limit: PAGE_SIZE };
			if (before) qs.before = before;
			const page = await apiRequest<{ generations: RunRecord[]; next_before: number | null }>(ctx, {
				method: 'GET',
				path: '/generations',
				qs,
				retryTransient: 2,
				expect: generationListProblem,
			});
			runs.push(...(page.body.generations ?? []));
			before = page.body.next_before;
			pages++;
		} while (before && pages < HISTORY_PAGES);
	} catch (error) {
		const reason = (error as Error)?.message ?? String(error);
		return { runs: runs.length ? runs : undefined, note: `its run history could not be read: ${reason}` };
	}
	return { runs, note: `looked through its newest ${runs.length} run${runs.length === 1 ? '' : 's'}` };
}

/** The account's newest runs, read once per execution (the same read serves every item and every pass). */
export async function readRunHistory(ctx: IExecuteFunctions): Promise<HistoryState> {
	const now = Date.now();
	for (const [k, v] of readThisExecution) if (now - v.at > KEEP_MS) readThisExecution.delete(k);
	let executionId: string | undefined;
	try {
		executionId = ctx.getExecutionId();
	} catch {
		executionId = undefined;
	}
	if (!executionId) return await readPages(ctx);
	const { baseUrl, fingerprint } = await identityOf(ctx);
	const key = `${executionId}|${baseUrl}|${fingerprint}`;
	const hit = readThisExecution.get(key);
	if (hit) return await hit.value;
	const value = readPages(ctx);
	readThisExecution.set(key, { at: now, value });
	return await value;
}

/** Whether any of these runs needs the history: not at the catalogue's defaults and not a talking-avatar run. */
function needsHistory(requests: Priced[]): boolean {
	return requests.some((r) => !isTalkingAvatar(r.model) && !isAtDefaults(r.model, optionsOf(r)));
}

/**
 * The price book for a batch. The history is read only when a price needs it, and never for an anonymous ID
 * unless `readAnonymous` (a first request with a new anonymous ID opens one of the address's free wallets).
 */
export async function priceBookFor(
	ctx: IExecuteFunctions,
	requests: Priced[],
	readAnonymous = true,
): Promise<PriceBook> {
	const models: CatalogueModel[] = await getModels(ctx).catch(() => requests.map((r) => r.model));
	let history: HistoryState;
	if (!needsHistory(requests)) history = { note: 'its run history was not needed' };
	else if ((await identityOf(ctx)).kind === 'anonymous' && !readAnonymous) {
		history = { note: 'the run history of an anonymous ID is not read, so that no free wallet is opened for it' };
	} else history = await readRunHistory(ctx);
	return new PriceBook(models, history);
}
