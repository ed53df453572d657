// A model's options from its catalogue entry: what it does with those sent (effectiveOptions), and the user's picks
// checked into the request's `options`. Pure. Unset options stay out; `resolution` is always sent (the API needs it).
import type { CatalogueModel, RunOptions } from '../../shared/records';

export const OPTION_LABELS: Record<string, string> = {
	resolution: 'Resolution',
	aspect: 'Aspect Ratio',
	tier: 'Tier',
	duration: 'Duration (Seconds)',
	format: 'File Format',
	audio: 'Sound',
	style: 'Style',
	title: 'Song Title',
	vocal: 'Voice',
};

/** The options the API names whose allowed values come from the model's catalogue entry, in display order. */
const LIST_OPTIONS = ['resolution', 'aspect', 'tier', 'duration', 'format', 'audio'];
/** Music options: free text or a short list, per music mode. */
const MUSIC_OPTIONS = ['style', 'title', 'vocal'] as const;
type MusicOption = (typeof MUSIC_OPTIONS)[number];
const MUSIC_FIELDS_BY_MODE: Record<string, MusicOption[]> = {
	Describe: ['style'],
	Lyrics: ['style', 'title', 'vocal'],
	Instrumental: ['title'],
};

/**
 * What a model does with the options it is sent: an option left out (or null) takes the model's default, and a music
 * model's mode (sent as `tier`) is the one sent, else its default, else Describe. Everything else asks this.
 */
export function effectiveOptions(
	model: CatalogueModel,
	sent: Record<string, unknown> = {},
): { options: Record<string, unknown>; musicMode?: string } {
	const options: Record<string, unknown> = { ...model.defaults };
	for (const [name, value] of Object.entries(sent)) if (value !== undefined && value !== null) options[name] = value;
	return model.kind === 'music' ? { options, musicMode: String(options.tier ?? 'Describe') } : { options };
}

/**
 * Every option the model takes from a list, known or new: v1 may add option keys (for example "fps"), and a key the
 * node does not know yet is offered and passed through when the catalogue lists values for it.
 */
export function listOptionsOf(model: CatalogueModel): string[] {
	const lists = (model.options ?? {}) as Record<string, unknown>;
	const known = [...LIST_OPTIONS, ...MUSIC_OPTIONS] as string[];
	return [...LIST_OPTIONS, ...Object.keys(lists).filter((k) => !known.includes(k))].filter((k) =>
		Array.isArray(lists[k]),
	);
}

export function musicFieldsFor(mode: string): MusicOption[] {
	return MUSIC_FIELDS_BY_MODE[mode] ?? [...MUSIC_OPTIONS];
}

export function acceptedNames(model: CatalogueModel): string[] {
	return [...listOptionsOf(model), ...(model.kind === 'music' ? MUSIC_OPTIONS : [])];
}

/** Brings a value typed or mapped as text to the type of the allowed values (numbers, yes/no). */
function coerce(value: unknown, allowed: unknown[]): unknown {
	if (typeof value !== 'string' || value.trim() === '') return value;
	if (allowed.some((v) => typeof v === 'number') && Number.isFinite(Number(value))) return Number(value);
	if (allowed.some((v) => typeof v === 'boolean') && (value === 'true' || value === 'false')) return value === 'true';
	return value;
}

const labelOf = (name: string) => OPTION_LABELS[name] ?? name;
const accepted = (model: CatalogueModel) => acceptedNames(model).join(', ');
const describeValue = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));

/** The problem of one picked option, if any (`mode`: the music mode in effect). */
function optionProblem(
	model: CatalogueModel,
	name: string,
	value: unknown,
	mode: string | undefined,
): string | undefined {
	const label = labelOf(name);
	const list = (model.options as Record<string, unknown[] | null | undefined>)?.[name];
	if (LIST_OPTIONS.includes(name) || Array.isArray(list)) {
		if (!Array.isArray(list))
			return `${label} (${name}) is not accepted by ${model.name}; remove it. This model accepts: ${accepted(model)}.`;
		if (list.includes(value)) return undefined;
		const def = describeValue((model.defaults as Record<string, unknown>)[name]);
		return (
			`${label} (${name}) ${describeValue(value)} is not allowed for ${model.name}. Allowed values: ` +
			`${list.map(describeValue).join(', ')} (default ${def}).`
		);
	}
	if (!(MUSIC_OPTIONS as readonly string[]).includes(name))
		return `${name} is not an option of ${model.name}. It accepts: ${accepted(model)}.`;
	if (model.kind !== 'music' || !model.music)
		return `${label} (${name}) is used only by music models; remove it for ${model.name}.`;
	const fields = musicFieldsFor(mode!);
	if (!(fields as string[]).includes(name))
		return `${label} (${name}) is not used in ${mode} mode. ${mode} mode uses: ${fields.map(labelOf).join(', ')}.`;
	const text = String(value);
	const { style_max_chars: styleMax, title_max_chars: titleMax, vocal } = model.music;
	const max = name === 'style' ? styleMax : name === 'title' ? titleMax : Infinity;
	if (text.length > max) return `${label} is ${text.length} characters long; the limit is ${max}.`;
	if (name === 'vocal' && !vocal.includes(text))
		return `Voice ${describeValue(text)} is not allowed. Allowed values: ${vocal.join(', ')} (m = male, f = female).`;
	return undefined;
}

/** The request's options from the values the user set (blank ones are ignored), with every problem. */
export function resolveOptions(
	model: CatalogueModel,
	picked: Record<string, unknown>,
	musicMode?: string,
): { options: RunOptions; problems: string[] } {
	const problems: string[] = [];
	const options: Record<string, unknown> = {};
	for (const [name, raw] of Object.entries(picked ?? {})) {
		if (raw === undefined || raw === null || raw === '') continue;
		const list = (model.options as Record<string, unknown>)?.[name];
		const value = coerce(raw, Array.isArray(list) ? list : []);
		const mode = effectiveOptions(model, { tier: musicMode ?? options.tier }).musicMode;
		const problem = optionProblem(model, name, value, mode);
		if (problem) problems.push(problem);
		else options[name] = (MUSIC_OPTIONS as readonly string[]).includes(name) ? String(value) : value;
	}
	const tier = musicMode ?? options.tier;
	if (model.kind === 'music' && tier !== undefined && tier !== '') {
		const modes = model.options?.tier ?? Object.keys(model.music?.modes ?? {});
		if (modes.includes(tier as string)) options.tier = tier;
		else
			problems.push(
				`Music Mode ${describeValue(tier)} is not offered by ${model.name}. Allowed values: ${modes.join(', ')}.`,
			);
	}
	options.resolution ??= model.defaults.resolution ?? model.options?.resolution?.[0];
	return { options: options as RunOptions, problems };
}

/** The prompt limit that applies to these options: the model's, or for music the mode's. */
export function promptLimit(model: CatalogueModel, options?: Record<string, unknown>): number {
	const { musicMode } = effectiveOptions(model, options);
	if (musicMode === undefined || !model.music) return model.prompt_max_chars;
	return model.music.prompt_max_chars_by_mode[musicMode] ?? model.prompt_max_chars;
}
