// Reads this account's run history for the price book: GET /generations, newest first, 100 runs a page, at most
// HISTORY_PAGES pages (300 runs), once per execution and identity. A history that cannot be read is not an error:
// prices it would have given are then unknown, and say why.
import type { IExecuteFunctions } from 'n8n-workflow';

import { generationListProblem } from '../../shared/responseChecks';
import type { CatalogueModel, RunRecord } from '../../shared/records';
import { apiRequest, identityOf } from '../../shared/transport';
import { isAtDefaults, isTalkingAvatar, PriceBook, type HistoryState, type PriceRequest } from './priceBook';
import { getModels } from '../catalogue/catalogue';

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
function needsHistory(requests: PriceRequest[]): boolean {
	return requests.some((r) => !isTalkingAvatar(r.model) && !isAtDefaults(r.model, r.options));
}

/**
 * The price book for a batch. The history is read only when a price needs it, and never for an anonymous ID
 * unless `readAnonymous` (a first request with a new anonymous ID opens one of the address's free wallets).
 */
export async function priceBookFor(
	ctx: IExecuteFunctions,
	requests: PriceRequest[],
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
