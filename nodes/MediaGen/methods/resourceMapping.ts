// The Options box of Generate: only the options the chosen model accepts, each with its allowed
// values and default (a resource mapper, filled from the model's catalogue entry).
import type { ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';

import type { CatalogueModel } from '../helpers/catalogueTypes';
import { listOptionsOf, musicFieldsFor, OPTION_LABELS } from '../helpers/resolveOptions';
import { currentModel, readParameter } from './parameters';

function listField(model: CatalogueModel, name: string): ResourceMapperField {
	const list = (model.options as Record<string, unknown[]>)[name];
	const def = (model.defaults as Record<string, unknown>)[name];
	const yesNo = list.every((v) => typeof v === 'boolean');
	return {
		id: name,
		displayName: `${OPTION_LABELS[name] ?? name}${def !== undefined ? ` (default: ${String(def)})` : ''}`,
		required: false,
		defaultMatch: false,
		display: true,
		type: yesNo ? 'boolean' : 'options',
		options: yesNo
			? undefined
			: list.map((v) => ({ name: `${String(v)}${v === def ? ' (default)' : ''}`, value: v as string | number })),
		canBeUsedToMatch: false,
	};
}

function musicField(model: CatalogueModel, name: 'style' | 'title' | 'vocal'): ResourceMapperField {
	const music = model.music!;
	const labels = {
		style: `Style (up to ${music.style_max_chars} characters)`,
		title: `Song Title (up to ${music.title_max_chars} characters)`,
		vocal: 'Voice',
	};
	const voice = (v: string) => (v === 'm' ? 'Male (m)' : v === 'f' ? 'Female (f)' : v);
	return {
		id: name,
		displayName: labels[name],
		required: false,
		defaultMatch: false,
		display: true,
		type: name === 'vocal' ? 'options' : 'string',
		options: name === 'vocal' ? music.vocal.map((v) => ({ name: voice(v), value: v })) : undefined,
		canBeUsedToMatch: false,
	};
}

/** The option fields of the chosen model: only those it accepts, each with its allowed values and default. */
export function optionFieldsFor(model: CatalogueModel, musicMode?: string): ResourceMapperField[] {
	// For music the mode has its own field, and resolution is always "song".
	const lists = listOptionsOf(model).filter((n) => !(model.kind === 'music' && (n === 'tier' || n === 'resolution')));
	const fields = lists.map((name) => listField(model, name));
	if (model.kind === 'music' && model.music) {
		for (const name of musicFieldsFor(musicMode ?? model.defaults.tier ?? 'Describe')) fields.push(musicField(model, name));
	}
	return fields;
}

export async function getModelOptionFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const model = await currentModel(this);
	if (!model) return { fields: [], emptyFieldsNotice: 'Pick a model first: its options appear here.' };
	const fields = optionFieldsFor(model, readParameter(this, 'musicMode') || undefined);
	return { fields, emptyFieldsNotice: `${model.name} has no options to set.` };
}
