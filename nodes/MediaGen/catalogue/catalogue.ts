// GET /models and GET /apps, cached in memory per base URL: models for 5 minutes, apps for an
// hour (the spec allows an hour). Dropdowns open instantly and a batch reads each once. Also what the catalogue
// says of one model for the editor and the run alike: the model an id names (lookUpModel) and whether the
// anonymous free tier covers it (freeTierCovers).
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, identityOf, type ApiContext } from '../../shared/transport';
import { listProblem } from '../../shared/answers';
import { KIND_NOUNS, kindLabel, type CatalogueApp, type CatalogueModel, type MediaKind } from '../../shared/records';

const MODEL_TTL_MS = 5 * 60_000;
const APP_TTL_MS = 60 * 60_000;
/**
 * An id just looked for again and still missing is not looked for again this soon
 * (a batch reads once, not per item).
 */
const MISS_MEMORY_MS = 5_000;
const recentMisses = new Map<string, number>();

interface Entry<T> {
	at: number;
	value: Promise<T>;
}

const modelCache = new Map<string, Entry<CatalogueModel[]>>();
const appCache = new Map<string, Entry<CatalogueApp[]>>();

async function cached<T>(
	cache: Map<string, Entry<T>>,
	key: string,
	ttl: number,
	load: () => Promise<T>,
	fresh = false,
): Promise<T> {
	const hit = cache.get(key);
	if (hit && !fresh && Date.now() - hit.at < ttl) return await hit.value;
	const value = load();
	cache.set(key, { at: Date.now(), value });
	value.catch(() => cache.delete(key)); // a failed read is not remembered
	return await value;
}

/** @param fresh read the catalogue again even when a cached copy is young (a model may have been added) */
export async function getModels(ctx: ApiContext, fresh = false): Promise<CatalogueModel[]> {
	const load = async () => {
		const res = await apiRequest<{ models: CatalogueModel[] }>(ctx, {
			method: 'GET',
			path: '/models',
			retryTransient: 2,
			expect: listProblem('models'),
		});
		return res.body.models.filter((m) => m && typeof m.id === 'string');
	};
	return await cached(modelCache, (await identityOf(ctx)).baseUrl, MODEL_TTL_MS, load, fresh);
}

export async function getApps(ctx: ApiContext): Promise<CatalogueApp[]> {
	return await cached(appCache, (await identityOf(ctx)).baseUrl, APP_TTL_MS, async () => {
		const res = await apiRequest<{ apps: CatalogueApp[] }>(ctx, {
			method: 'GET',
			path: '/apps',
			retryTransient: 2,
			expect: listProblem('apps'),
		});
		return res.body.apps.filter((a) => a && typeof a.slug === 'string');
	});
}

/**
 * The catalogue's free_tier flag marks the house engines (free daily runs for signed-in accounts); the anonymous
 * free tier covers only the image one (spec, "Anonymous free tier"). The one statement of that rule.
 */
export function freeTierCovers(model: CatalogueModel): boolean {
	return model.free_tier && model.kind === 'image';
}

/** The models the anonymous free tier covers, by id. */
export function freeTierModelIds(models: CatalogueModel[]): string[] {
	return models.filter(freeTierCovers).map((m) => m.id);
}

/**
 * The model a step uses when Model is left empty: the cheapest of the kind's house engines (free_tier: free daily
 * runs), else the kind's cheapest model; catalogue order breaks ties. Undefined when the catalogue has none.
 */
export function defaultModel(models: CatalogueModel[], kind: MediaKind): CatalogueModel | undefined {
	const ofKind = models.filter((m) => m.kind === kind);
	const free = ofKind.filter((m) => m.free_tier);
	const cheapest = (list: CatalogueModel[]) =>
		list.reduce<CatalogueModel | undefined>(
			(best, m) => (!best || m.credits_at_defaults < best.credits_at_defaults ? m : best),
			undefined,
		);
	return cheapest(free) ?? cheapest(ofKind);
}

/** What the catalogue has for a model id and a kind (undefined: any kind). Pure; each caller words the problems. */
export type ModelLookUp = { model: CatalogueModel } | { missing: CatalogueModel[] } | { otherKind: CatalogueModel };

/** The model an id names; else the kind's models when the id is not there, or the model when it is of another kind. */
export function lookUpModel(models: CatalogueModel[], modelId: string, kind: MediaKind | undefined): ModelLookUp {
	const model = models.find((m) => m.id === modelId);
	if (!model) return { missing: models.filter((m) => !kind || m.kind === kind) };
	if (kind && model.kind !== kind) return { otherKind: model };
	return { model };
}

/** Finds a model by id, saying which ids exist for this kind when it is not there. */
export function findModel(
	ctx: ApiContext,
	models: CatalogueModel[],
	modelId: string,
	kind: MediaKind | undefined,
	itemIndex: number,
): CatalogueModel {
	const found = lookUpModel(models, modelId, kind);
	if ('missing' in found) {
		// With the price beside each ID: an AI agent choosing the model reads this and can call again.
		const ids = found.missing.map((m) => `${m.id} (${kind ? '' : `${m.kind}, `}${m.credits_at_defaults} credits)`);
		throw new NodeOperationError(ctx.getNode(), `Model: "${modelId}" is not in the model catalogue`, {
			description:
				`Pick a model from the list, or use one of these ${kind ? `${kind} ` : ''}model IDs (price at ` +
				`their default options): ${ids.join(', ')}.`,
			itemIndex,
		});
	}
	if ('otherKind' in found) {
		// Only a model of another kind than the one asked for, so a kind was asked for.
		const model = found.otherKind;
		const makes = `makes ${KIND_NOUNS[model.kind]}, not ${KIND_NOUNS[kind!]}`;
		throw new NodeOperationError(ctx.getNode(), `Model: "${modelId}" (${model.name}) ${makes}`, {
			description: `Change Kind to ${kindLabel(model.kind)}, or pick ${kind === 'image' ? 'an' : 'a'} ${kind} model.`,
			itemIndex,
		});
	}
	return found.model;
}

/** Finds a model, reading the catalogue once more before refusing an id the cached copy lacks. */
export async function resolveModel(
	ctx: ApiContext,
	modelId: string,
	kind: MediaKind | undefined,
	itemIndex: number,
): Promise<CatalogueModel> {
	let models = await getModels(ctx);
	const missKey = `${(await identityOf(ctx)).baseUrl}|${modelId}`;
	const missedAt = recentMisses.get(missKey);
	if (!models.some((m) => m.id === modelId) && !(missedAt && Date.now() - missedAt < MISS_MEMORY_MS)) {
		models = await getModels(ctx, true);
		if (!models.some((m) => m.id === modelId)) recentMisses.set(missKey, Date.now());
	}
	return findModel(ctx, models, modelId, kind, itemIndex);
}

/** The model of an item whose Model is left empty (defaultModel), read from the catalogue when the step runs. */
export async function resolveDefaultModel(
	ctx: ApiContext,
	kind: MediaKind,
	itemIndex: number,
): Promise<CatalogueModel> {
	const model = defaultModel(await getModels(ctx), kind);
	if (model) return model;
	throw new NodeOperationError(ctx.getNode(), `Model: none chosen, and the catalogue has no ${kind} model`, {
		description: 'Pick a model from the list, or change Kind.',
		itemIndex,
	});
}
