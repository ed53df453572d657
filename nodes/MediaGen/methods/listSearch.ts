// Searchable lists (resource locators): models with their prices, and apps.
import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { identityOf } from '../../shared/transport';
import { freeTierCovers, getApps, getModels } from '../catalogue/catalogue';
import { KIND_NOUNS, kindLabel, type CatalogueApp, type CatalogueModel } from '../../shared/records';
import { editorKind, readParameter } from './parameters';
import { isToolCall } from '../run/toolCall';
import { AGENT_CHOICE_NAME, agentModelDescription, agentModels, agentModelValue } from '../tool/agentModelChoice';

function modelLabel(m: CatalogueModel, anonymous: boolean): string {
	const price = m.credits_at_defaults === 1 ? '1 credit' : `${m.credits_at_defaults} credits`;
	const free = m.free_tier ? ', free tier' : '';
	const audio = m.inputs?.includes('audio') ? ', needs driving audio' : '';
	const notCovered = anonymous && !freeTierCovers(m) ? ' — needs an API key' : '';
	return `${m.name} (${m.vendor}) · ${price}${free}${audio}${notCovered}`;
}

export async function searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const anonymous = (await identityOf(this)).kind === 'anonymous';
	// Kind from an expression: every model. Its kind first in its name in every list: n8n saves the name with the
	// choice (cachedResultName), and the notice under Model reads the kind there when Kind changes (modelKindNotices).
	const kind = editorKind(this);
	const needle = (filter ?? '').toLowerCase();
	const all = await getModels(this);
	const models = all
		.filter((m) => !kind || m.kind === kind)
		.filter((m) => !needle || `${m.id} ${m.name} ${m.vendor}`.toLowerCase().includes(needle));
	// For an anonymous ID the models its free tier covers first (those not marked "needs an API key"), then by price.
	const uncovered = (m: CatalogueModel) => Number(anonymous && !freeTierCovers(m));
	models.sort((a, b) => uncovered(a) - uncovered(b) || a.credits_at_defaults - b.credits_at_defaults);
	const results = models.map((m) => ({
		name: `${kindLabel(m.kind)} · ${modelLabel(m, anonymous)}`,
		value: m.id,
		description: m.description,
	}));
	// A model of another kind still chosen (n8n's editor empties Model on a Kind change only when it can resolve every
	// expression of the node): n8n shows it first, highlighted, under this name.
	const chosen = all.find((m) => m.id === readParameter(this, 'model', true).trim());
	if (kind && chosen && chosen.kind !== kind) {
		const wanted = `${kind === 'image' ? 'an' : 'a'} ${kind} model`;
		const name = `${chosen.name} makes ${KIND_NOUNS[chosen.kind]}, not ${KIND_NOUNS[kind]}: pick ${wanted} below`;
		results.unshift({ name, value: chosen.id, description: chosen.description });
	}
	// On the tool variant, first: leave the model to the AI agent, telling it the kind's IDs and prices.
	if (kind && !needle && isToolCall(this)) {
		const count = agentModels(all, kind).length;
		results.unshift({
			name: `${AGENT_CHOICE_NAME}: told the ${count} ${kind} model IDs and prices`,
			value: agentModelValue(all, kind),
			description: agentModelDescription(all, kind),
		});
	}
	return { results };
}

export async function searchApps(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const kind = readParameter(this, 'appKind');
	const needle = (filter ?? '').toLowerCase();
	const text = (a: CatalogueApp) => `${a.slug} ${a.name} ${a.category ?? ''} ${(a.tags ?? []).join(' ')}`.toLowerCase();
	const apps = (await getApps(this)).filter((a) => (!kind || a.kind === kind) && (!needle || text(a).includes(needle)));
	return {
		results: apps.map((a) => ({
			name: `${a.name} (${a.kind}, ${a.looks.length} look${a.looks.length === 1 ? '' : 's'})`,
			value: a.slug,
			description: a.description,
			url: a.url,
		})),
	};
}
