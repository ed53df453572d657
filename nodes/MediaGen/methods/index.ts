// Catalogue-driven dropdowns: every model id, option and allowed value comes from GET /models.
import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';

import { getIdentity } from '../transport';
import { getApps, getModels } from '../helpers/catalogue';
import type { CatalogueModel } from '../helpers/catalogueTypes';
import { listOptionsOf, musicFieldsFor, OPTION_LABELS } from '../helpers/resolveOptions';

function currentKind(ctx: ILoadOptionsFunctions): string | undefined {
	try {
		return ctx.getNodeParameter('kind', 'image') as string;
	} catch {
		return undefined;
	}
}

async function currentModel(ctx: ILoadOptionsFunctions): Promise<CatalogueModel | undefined> {
	let id = '';
	try {
		id = String(ctx.getNodeParameter('model', '', { extractValue: true }) ?? '');
	} catch {
		id = '';
	}
	if (!id) return undefined;
	return (await getModels(ctx)).find((m) => m.id === id);
}

export function modelLabel(m: CatalogueModel, anonymous: boolean): string {
	const price = m.credits_at_defaults === 1 ? '1 credit' : `${m.credits_at_defaults} credits`;
	const free = m.free_tier ? ', free tier' : '';
	const notCovered = anonymous && !(m.free_tier && m.kind === 'image') ? ' — needs an API key' : '';
	return `${m.name} (${m.vendor}) · ${price}${free}${notCovered}`;
}

export async function searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const identity = await getIdentity(this);
	const kind = currentKind(this);
	const needle = (filter ?? '').toLowerCase();
	const models = (await getModels(this, identity))
		.filter((m) => !kind || m.kind === kind)
		.filter((m) => !needle || `${m.id} ${m.name} ${m.vendor}`.toLowerCase().includes(needle));
	const anonymous = identity.kind === 'anonymous';
	// Covered models first for the free tier, then by price.
	models.sort((a, b) => Number(anonymous && !a.free_tier) - Number(anonymous && !b.free_tier) || a.credits_at_defaults - b.credits_at_defaults);
	return {
		results: models.map((m) => ({ name: modelLabel(m, anonymous), value: m.id, description: m.description })),
	};
}

export async function searchApps(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	let kind = '';
	try {
		kind = String(this.getNodeParameter('appKind', '') ?? '');
	} catch {
		kind = '';
	}
	const needle = (filter ?? '').toLowerCase();
	const apps = (await getApps(this))
		.filter((a) => !kind || a.kind === kind)
		.filter((a) => !needle || `${a.slug} ${a.name} ${a.category ?? ''} ${(a.tags ?? []).join(' ')}`.toLowerCase().includes(needle));
	return { results: apps.map((a) => ({ name: `${a.name} (${a.kind}, ${a.looks.length} look${a.looks.length === 1 ? '' : 's'})`, value: a.slug, description: a.description, url: a.url })) };
}

async function currentApp(ctx: ILoadOptionsFunctions) {
	let slug = '';
	try {
		slug = String(ctx.getNodeParameter('app', '', { extractValue: true }) ?? '');
	} catch {
		slug = '';
	}
	return slug ? (await getApps(ctx)).find((a) => a.slug === slug) : undefined;
}

export async function getLooks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const app = await currentApp(this);
	return (app?.looks ?? []).map((l) => ({ name: l.name, value: l.id, description: l.prompt }));
}

export async function getAppSlots(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const app = await currentApp(this);
	return (app?.inputs ?? []).map((s) => ({
		name: s.label,
		value: s.id,
		description: `${s.hint ?? ''} ${s.min === s.max ? `Exactly ${s.min}` : `${s.min} to ${s.max}`} photo(s), ${s.accept}.`.trim(),
	}));
}

export async function getMusicModes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const model = await currentModel(this);
	const music = model?.music;
	const modes = model?.options.tier ?? Object.keys(music?.modes ?? {});
	return modes.map((mode) => ({
		name: mode,
		value: mode,
		description: `${music?.modes?.[mode] ?? ''} Prompt up to ${music?.prompt_max_chars_by_mode?.[mode] ?? model?.prompt_max_chars} characters.`.trim(),
	}));
}

/** The option fields of the chosen model: only those it accepts, each with its allowed values and default. */
export function optionFieldsFor(model: CatalogueModel, musicMode?: string): ResourceMapperField[] {
	const fields: ResourceMapperField[] = [];
	const defaults = model.defaults as Record<string, unknown>;
	const lists = model.options as Record<string, unknown[] | null | undefined>;
	for (const name of listOptionsOf(model)) {
		if (model.kind === 'music' && (name === 'tier' || name === 'resolution')) continue; // mode has its own field; resolution is always "song"
		const list = lists[name] as unknown[];
		const def = defaults[name];
		const yesNo = list.every((v) => typeof v === 'boolean');
		fields.push({
			id: name,
			displayName: `${OPTION_LABELS[name] ?? name}${def !== undefined ? ` (default: ${String(def)})` : ''}`,
			required: false,
			defaultMatch: false,
			display: true,
			type: yesNo ? 'boolean' : 'options',
			options: yesNo ? undefined : list.map((v) => ({ name: `${String(v)}${v === def ? ' (default)' : ''}`, value: v as string | number })),
			canBeUsedToMatch: false,
		});
	}
	if (model.kind === 'music' && model.music) {
		const mode = musicMode ?? model.defaults.tier ?? 'Describe';
		for (const name of musicFieldsFor(mode)) {
			fields.push({
				id: name,
				displayName:
					name === 'style'
						? `Style (up to ${model.music.style_max_chars} characters)`
						: name === 'title'
							? `Song Title (up to ${model.music.title_max_chars} characters)`
							: 'Voice',
				required: false,
				defaultMatch: false,
				display: true,
				type: name === 'vocal' ? 'options' : 'string',
				options: name === 'vocal' ? model.music.vocal.map((v) => ({ name: v === 'm' ? 'Male (m)' : v === 'f' ? 'Female (f)' : v, value: v })) : undefined,
				canBeUsedToMatch: false,
			});
		}
	}
	return fields;
}

export async function getModelOptionFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const model = await currentModel(this);
	if (!model) return { fields: [], emptyFieldsNotice: 'Pick a model first: its options appear here.' };
	let mode: string | undefined;
	try {
		mode = (this.getNodeParameter('musicMode', '') as string) || undefined;
	} catch {
		mode = undefined;
	}
	const fields = optionFieldsFor(model, mode);
	return { fields, emptyFieldsNotice: `${model.name} has no options to set.` };
}
