// GET /models and /apps, cached per base URL (models 5 minutes, apps an hour, as the spec allows), and what the
// catalogue says of one model for the editor and the run alike.
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, identityOf, type ApiContext } from '../../shared/transport';
import { listProblem } from '../../shared/responseChecks';
import { KIND_NOUNS, kindLabel, type CatalogueApp, type CatalogueModel, type MediaKind } from '../../shared/records';

// The maps below live in one process: safe with several n8n processes, since an entry only saves a read (another
// process reads for itself); what a step decides never depends on which process holds what.
/** Each list's read, by list and base URL. */
const cache = new Map<string, { at: number; value: Promise<unknown[]> }>();
/** Ids just looked for in a fresh read and missing, not looked for again for 5 s (a batch reads once, not per item). */
const recentMisses = new Map<string, number>();

/** GET /models or /apps through the cache, entries without their id left out; `fresh` reads again even when young. */
async function readList<T>(ctx: ApiContext, field: 'models' | 'apps', ttl: number, id: keyof T, fresh = false) {
	const key = `${field} ${(await identityOf(ctx)).baseUrl}`;
	const hit = cache.get(key);
	if (hit && !fresh && Date.now() - hit.at < ttl) return (await hit.value) as T[];
	const value = (async () => {
		const res = await apiRequest<Record<string, T[]>>(ctx, {
			method: 'GET',
			path: `/${field}`,
			retryTransient: 2,
			expect: listProblem(field),
		});
		return res.body[field].filter((entry) => entry && typeof entry[id] === 'string');
	})();
	cache.set(key, { at: Date.now(), value });
	value.catch(() => cache.delete(key)); // a failed read is not remembered
	return await value;
}

export async function getModels(ctx: ApiContext, fresh = false): Promise<CatalogueModel[]> {
	return await readList<CatalogueModel>(ctx, 'models', 5 * 60_000, 'id', fresh);
}

export async function getApps(ctx: ApiContext): Promise<CatalogueApp[]> {
	return await readList<CatalogueApp>(ctx, 'apps', 60 * 60_000, 'slug');
}

/** free_tier marks the house engines; the anonymous free tier covers only the image one (spec: Anonymous free tier). */
export function freeTierCovers(model: CatalogueModel): boolean {
	return model.free_tier && model.kind === 'image';
}

/**
 * The model a step uses when Model is left empty: the cheapest of the kind's house engines (free_tier: free daily
 * runs), else the kind's cheapest model; catalogue order breaks ties. Undefined when the catalogue has none.
 */
export function defaultModel(models: CatalogueModel[], kind: MediaKind): CatalogueModel | undefined {
	const cheapest = (list: CatalogueModel[]): CatalogueModel | undefined =>
		list.reduce((best, m) => (best.credits_at_defaults <= m.credits_at_defaults ? best : m), list[0]);
	const ofKind = models.filter((m) => m.kind === kind);
	return cheapest(ofKind.filter((m) => m.free_tier)) ?? cheapest(ofKind);
}

/**
 * The model an id names; else the kind's models (undefined kind: any) when the id is not there, or the model when it
 * is of another kind. Pure; each caller words the problems.
 */
export function lookUpModel(
	models: CatalogueModel[],
	modelId: string,
	kind: MediaKind | undefined,
): { model: CatalogueModel } | { missing: CatalogueModel[] } | { otherKind: CatalogueModel } {
	const model = models.find((m) => m.id === modelId);
	if (!model) return { missing: models.filter((m) => !kind || m.kind === kind) };
	if (kind && model.kind !== kind) return { otherKind: model };
	return { model };
}

/**
 * The model an item names, reading the catalogue once more before refusing an id the cached copy lacks (a model may
 * have been added); with Model left empty and a kind, the kind's default model.
 */
export async function resolveModel(
	ctx: ApiContext,
	modelId: string,
	kind: MediaKind | undefined,
	itemIndex: number,
): Promise<CatalogueModel> {
	const refuse = (message: string, description: string) =>
		new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
	let models = await getModels(ctx);
	if (!modelId && kind) {
		const model = defaultModel(models, kind);
		if (model) return model;
		throw refuse(
			`Model: none chosen, and the catalogue has no ${kind} model`,
			'Pick a model from the list, or change Kind.',
		);
	}
	const missKey = `${(await identityOf(ctx)).baseUrl}|${modelId}`;
	const missedAt = recentMisses.get(missKey);
	if (!models.some((m) => m.id === modelId) && !(missedAt && Date.now() - missedAt < 5_000)) {
		models = await getModels(ctx, true);
		if (!models.some((m) => m.id === modelId)) recentMisses.set(missKey, Date.now());
	}
	const found = lookUpModel(models, modelId, kind);
	if ('missing' in found) {
		// With the price beside each ID: an AI agent choosing the model reads this and can call again.
		const ids = found.missing.map((m) => `${m.id} (${kind ? '' : `${m.kind}, `}${m.credits_at_defaults} credits)`);
		throw refuse(
			`Model: "${modelId}" is not in the model catalogue`,
			`Pick a model from the list, or use one of these ${kind ? `${kind} ` : ''}model IDs (price at their default ` +
				`options): ${ids.join(', ')}.`,
		);
	}
	if ('otherKind' in found) {
		const { name, kind: makes } = found.otherKind; // a kind was asked for
		throw refuse(
			`Model: "${modelId}" (${name}) makes ${KIND_NOUNS[makes]}, not ${KIND_NOUNS[kind!]}`,
			`Change Kind to ${kindLabel(makes)}, or pick ${kind === 'image' ? 'an' : 'a'} ${kind} model.`,
		);
	}
	return found.model;
}
