// Generate's Options box (each option the model accepts, starting at "Model Default (…)", which sends nothing, so an
// untouched option never sends a value not picked), and About the Model, the notice saying what the model needs.
import type { ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';

import type { CatalogueModel } from '../../shared/records';
import { effectiveOptions, listOptionsOf, musicFieldsFor, OPTION_LABELS } from '../catalogue/modelOptions';
import { describeLoadProblem, findModelFor } from './parameters';

const showValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 'On' : 'Off') : String(v));

/** A field of the box, shown and never matched on (the box only maps values). */
function field(id: string, displayName: string, more: Partial<ResourceMapperField>): ResourceMapperField {
	return { id, displayName, required: false, defaultMatch: false, display: true, canBeUsedToMatch: false, ...more };
}

// An option the model takes from a list, starting at a blank "Model Default (…)": n8n stores a blank choice as not
// set, and unset options are left out of the request. Yes/no options too: n8n's switch has no "not set" state.
function listField(model: CatalogueModel, name: string): ResourceMapperField {
	const list = (model.options as Record<string, unknown[]>)[name];
	const def = (model.defaults as Record<string, unknown>)[name];
	const shown = def === undefined ? '' : ` (${showValue(def)})`;
	return field(name, `${OPTION_LABELS[name] ?? name}${def === undefined ? '' : ` (default: ${showValue(def)})`}`, {
		type: 'options',
		options: [
			{
				name: `Model Default${shown}`,
				value: '',
				description: 'Sends nothing for this option: the model uses its own default',
			},
			...list.map((v) => ({
				name: `${showValue(v)}${v === def ? ' (default)' : ''}`,
				value: v as string | number | boolean,
			})),
		],
		defaultValue: '',
	});
}

function musicField(model: CatalogueModel, name: 'style' | 'title' | 'vocal'): ResourceMapperField {
	const music = model.music!;
	if (name === 'style')
		return field(name, `Style (≤ ${music.style_max_chars} chars)`, { type: 'string', defaultValue: '' });
	if (name === 'title')
		return field(name, `Song Title (≤ ${music.title_max_chars} chars)`, { type: 'string', defaultValue: '' });
	const voice = (v: string) => (v === 'm' ? 'Male (m)' : v === 'f' ? 'Female (f)' : v);
	return field(name, 'Voice', {
		type: 'options',
		options: [
			{ name: 'Any Voice (Model Chooses)', value: '', description: 'Sends no voice: the model picks one' },
			...music.vocal.map((v) => ({ name: voice(v), value: v })),
		],
		defaultValue: '',
	});
}

export function optionFieldsFor(model: CatalogueModel, musicMode?: string): ResourceMapperField[] {
	// For music the mode has its own field, and resolution is always "song".
	const music = model.kind === 'music';
	const lists = listOptionsOf(model).filter((n) => !(music && (n === 'tier' || n === 'resolution')));
	const songFields =
		music && model.music ? musicFieldsFor(effectiveOptions(model, { tier: musicMode }).musicMode!) : [];
	return [...lists.map((name) => listField(model, name)), ...songFields.map((name) => musicField(model, name))];
}

// With no model, the note under Model says why (said twice, it read as two problems). Never blank: n8n's editor
// keeps the box's previous notice when a new one is empty.
export const NO_OPTIONS_NOTICE = 'No options to show yet: the note under Model says why.';

export async function getModelOptionFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	// A broken credential or an unreachable service: About the Model gives the reason.
	const found = await findModelFor(this).catch(() => ({ problem: '' }));
	if ('problem' in found) return { fields: [], emptyFieldsNotice: NO_OPTIONS_NOTICE };
	const notice = `${found.model.name} has no options to set: it always uses its defaults.`;
	return { fields: optionFieldsFor(found.model, found.musicMode), emptyFieldsNotice: notice };
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What the chosen model does and needs, in a few lines (About the Model): n8n's model list shows names only. */
function modelSummary(model: CatalogueModel, musicMode?: string): string {
	const price = `${count(model.credits_at_defaults, 'credit')} at its defaults${model.free_tier ? ', free tier' : ''}`;
	const lines = [`<b>${model.name}</b> (${model.vendor}) · ${price}. ${model.description ?? ''}`.trim()];
	const facts: string[] = [];
	if (model.kind === 'music' && model.music) {
		const mode = effectiveOptions(model, { tier: musicMode }).musicMode!;
		const limits = model.music.prompt_max_chars_by_mode;
		const modes = Object.entries(limits).map(([m, n]) => `${m} ${n.toLocaleString('en-US')}`);
		const limit = count(limits[mode] ?? model.prompt_max_chars, 'character');
		facts.push(`Prompt up to ${limit} in ${mode} mode (${modes.join(', ')})`);
		facts.push(`${count(model.music.songs_per_run, 'song')} per run, each an MP3 with cover art`);
	} else {
		facts.push(`Prompt up to ${count(model.prompt_max_chars, 'character')}`);
		const images = model.reference_images_max;
		facts.push(images > 0 ? `up to ${count(images, 'reference image')}` : 'text only: no reference images');
		// Not fields of the spec's model record: said only when the catalogue gives them (unknown is not "no").
		if (model.kind === 'video' && model.end_frame !== undefined)
			facts.push(model.end_frame ? 'takes an end frame' : 'no end frame');
		if (model.negative_prompt !== undefined)
			facts.push(model.negative_prompt ? 'takes a negative prompt' : 'no negative prompt (leave that field empty)');
	}
	lines.push(`${facts.join(' · ')}.`);
	if (model.inputs?.includes('audio')) {
		lines.push(
			'<b>Needs driving audio</b>: add Additional Fields → Driving Audio File or Driving Audio URL. ' +
				"The price follows the audio's length.",
		);
	}
	lines.push('Options below start at "Model Default": nothing is sent for them and the model uses its default.');
	return lines.join('<br>');
}

/** The first line of About the Model while Model is empty: which model the step will use, and why that one. */
function defaultModelLead(model: CatalogueModel): string {
	const which = model.free_tier ? `cheapest free-tier ${model.kind} model` : `cheapest ${model.kind} model`;
	return `<b>No model chosen</b>: the step uses ${model.name}, the ${which} in the catalogue. Pick another above.`;
}

/** About the Model: never any fields, only the notice describing the chosen model (or why there is none). */
export async function getModelSummary(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	try {
		const found = await findModelFor(this);
		if ('problem' in found) return { fields: [], emptyFieldsNotice: found.problem };
		const summary = modelSummary(found.model, found.musicMode);
		const notice = found.chosen ? summary : `${defaultModelLead(found.model)}<br>${summary}`;
		return { fields: [], emptyFieldsNotice: notice };
	} catch (error) {
		// n8n reloads this box when Kind, Model or Music Mode change, not when the credential does.
		const later =
			' Read when this box loaded: once the credential is fixed, close and reopen the node to read it again.';
		return { fields: [], emptyFieldsNotice: `${describeLoadProblem(error)}${later}` };
	}
}
