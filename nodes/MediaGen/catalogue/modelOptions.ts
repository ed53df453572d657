// Turns what the user picked into the request's `options`, checked against the model's catalogue
// entry. Pure: no n8n, no HTTP. Unset options stay out so the model's defaults apply; `resolution`
// is always sent (the API requires it), falling back to the model default.
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
export const LIST_OPTIONS = ['resolution', 'aspect', 'tier', 'duration', 'format', 'audio'] as const;
/** Music options: free text or a short list, per music mode. */
export const MUSIC_OPTIONS = ['style', 'title', 'vocal'] as const;

/**
 * Every option the model takes from a list, known or new: v1 may add option keys (for example "fps"),
 * and a key the node does not know yet is offered and passed through when the catalogue lists values for it.
 */
export function listOptionsOf(model: CatalogueModel): string[] {
	const lists = (model.options ?? {}) as Record<string, unknown>;
	const extra = Object.keys(lists).filter(
		(k) => !(LIST_OPTIONS as readonly string[]).includes(k) && !(MUSIC_OPTIONS as readonly string[]).includes(k),
	);
	return [...LIST_OPTIONS, ...extra].filter((k) => Array.isArray(lists[k]));
}
const MUSIC_FIELDS_BY_MODE: Record<string, Array<'style' | 'title' | 'vocal'>> = {
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

export function musicFieldsFor(mode: string): Array<'style' | 'title' | 'vocal'> {
	return MUSIC_FIELDS_BY_MODE[mode] ?? ['style', 'title', 'vocal'];
}

function isBlank(v: unknown): boolean {
	return v === undefined || v === null || v === '';
}

/** Brings a value typed or mapped as text to the type of the allowed values (numbers, yes/no). */
function coerce(value: unknown, allowed: unknown[]): unknown {
	if (typeof value !== 'string' || value.trim() === '') return value;
	if (allowed.some((v) => typeof v === 'number') && Number.isFinite(Number(value))) return Number(value);
	if (allowed.some((v) => typeof v === 'boolean') && (value === 'true' || value === 'false')) return value === 'true';
	return value;
}

export function describeValue(v: unknown): string {
	return typeof v === 'string' ? `"${v}"` : String(v);
}

export interface ResolvedOptions {
	options: RunOptions;
	problems: string[];
}

/**
 * @param picked values the user set (blank ones are ignored)
 * @param musicMode the music mode (sent as `tier`) for music models
 */
export function resolveOptions(
	model: CatalogueModel,
	picked: Record<string, unknown>,
	musicMode?: string,
): ResolvedOptions {
	const problems: string[] = [];
	const options: RunOptions = {};
	const allowed = model.options ?? ({} as CatalogueModel['options']);
	for (const [rawName, rawValue] of Object.entries(picked ?? {})) {
		if (isBlank(rawValue)) continue;
		const name = rawName;
		const label = OPTION_LABELS[name] ?? name;
		const list = (allowed as Record<string, unknown[] | null | undefined>)[name];
		const value = coerce(rawValue, Array.isArray(list) ? list : []);
		if ((LIST_OPTIONS as readonly string[]).includes(name) || Array.isArray(list)) {
			if (list === null || list === undefined) {
				problems.push(
					`${label} (${name}) is not accepted by ${model.name}; remove it. This model accepts: ` +
						`${acceptedNames(model).join(', ')}.`,
				);
				continue;
			}
			if (!list.includes(value as never)) {
				problems.push(
					`${label} (${name}) ${describeValue(value)} is not allowed for ${model.name}. Allowed values: ` +
						`${list.map(describeValue).join(', ')} (default ` +
						`${describeValue((model.defaults as Record<string, unknown>)[name])}).`,
				);
				continue;
			}
			(options as Record<string, unknown>)[name] = value;
			continue;
		}
		if ((MUSIC_OPTIONS as readonly string[]).includes(name)) {
			if (model.kind !== 'music' || !model.music) {
				problems.push(`${label} (${name}) is used only by music models; remove it for ${model.name}.`);
				continue;
			}
			const mode = effectiveOptions(model, { tier: musicMode ?? options.tier }).musicMode!;
			if (!(musicFieldsFor(mode) as string[]).includes(name)) {
				problems.push(
					`${label} (${name}) is not used in ${mode} mode. ${mode} mode uses: ${
						musicFieldsFor(mode)
							.map((f) => OPTION_LABELS[f])
							.join(', ') || 'none'
					}.`,
				);
				continue;
			}
			const text = String(value);
			if (name === 'style' && text.length > model.music.style_max_chars) {
				problems.push(`Style is ${text.length} characters long; the limit is ${model.music.style_max_chars}.`);
				continue;
			}
			if (name === 'title' && text.length > model.music.title_max_chars) {
				problems.push(`Song Title is ${text.length} characters long; the limit is ${model.music.title_max_chars}.`);
				continue;
			}
			if (name === 'vocal' && !model.music.vocal.includes(text)) {
				problems.push(
					`Voice ${describeValue(text)} is not allowed. Allowed values: ${model.music.vocal.join(', ')} (m = male, f = ` +
						`female).`,
				);
				continue;
			}
			(options as Record<string, unknown>)[name] = text;
			continue;
		}
		problems.push(`${name} is not an option of ${model.name}. It accepts: ${acceptedNames(model).join(', ')}.`);
	}
	if (model.kind === 'music') {
		const modes = allowed.tier ?? Object.keys(model.music?.modes ?? {});
		const mode = musicMode ?? options.tier;
		if (mode !== undefined && mode !== '') {
			if (!modes.includes(mode))
				problems.push(
					`Music Mode ${describeValue(mode)} is not offered by ${model.name}. Allowed values: ${modes.join(', ')}.`,
				);
			else options.tier = mode;
		}
	}
	if (options.resolution === undefined) options.resolution = model.defaults.resolution ?? allowed.resolution?.[0];
	return { options, problems };
}

export function acceptedNames(model: CatalogueModel): string[] {
	const names = listOptionsOf(model);
	if (model.kind === 'music') names.push(...MUSIC_OPTIONS);
	return names;
}

/** The prompt limit that applies to these options: the model's, or for music the mode's. */
export function promptLimit(model: CatalogueModel, options?: Record<string, unknown>): number {
	const { musicMode } = effectiveOptions(model, options);
	if (musicMode === undefined || !model.music) return model.prompt_max_chars;
	return model.music.prompt_max_chars_by_mode[musicMode] ?? model.prompt_max_chars;
}
