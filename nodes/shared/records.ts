// Shapes of what GET /models, GET /apps and the run endpoints return (spec "Resources and their fields").
// Unknown fields are ignored, as the spec asks of clients.

export type MediaKind = 'image' | 'video' | 'music';

/** What a model of each kind makes, as a person says it: "makes images", "makes songs". */
export const KIND_NOUNS: Readonly<Record<MediaKind, string>> = { image: 'images', video: 'videos', music: 'songs' };

/** A Kind value as typed or given by an expression ("Video", " music "), or undefined if it is none of the three. */
export function parseKind(value: unknown): MediaKind | undefined {
	const kind = String(value ?? '')
		.trim()
		.toLowerCase();
	return Object.hasOwn(KIND_NOUNS, kind) ? (kind as MediaKind) : undefined;
}

/** Kind as its dropdown shows it ("Image"). */
export function kindLabel(kind: MediaKind): string {
	return `${kind[0].toUpperCase()}${kind.slice(1)}`;
}

export interface RunOptions {
	resolution?: string;
	aspect?: string;
	tier?: string;
	duration?: number;
	format?: string;
	audio?: boolean;
	style?: string;
	title?: string;
	vocal?: string;
}

export interface CatalogueModel {
	id: string;
	kind: MediaKind;
	name: string;
	vendor: string;
	description?: string;
	free_tier: boolean;
	inputs: string[];
	options: {
		aspect?: string[] | null;
		tier?: string[] | null;
		resolution: string[];
		duration?: number[] | null;
		format?: string[] | null;
		audio?: boolean[] | null;
	};
	reference_images_max: number;
	defaults: RunOptions;
	credits_at_defaults: number;
	prompt_max_chars: number;
	negative_prompt?: boolean;
	end_frame?: boolean;
	music?: {
		modes: Record<string, string>;
		prompt_max_chars_by_mode: Record<string, number>;
		style_max_chars: number;
		title_max_chars: number;
		vocal: string[];
		songs_per_run: number;
	};
}

export interface AppLook {
	id: string;
	name: string;
	prompt: string;
	model: string;
	options: RunOptions & Record<string, unknown>;
}

export interface CatalogueApp {
	slug: string;
	kind: MediaKind;
	name: string;
	description?: string;
	category: string | null;
	tags: string[];
	model: string;
	models: string[];
	url?: string;
	inputs: Array<{ id: string; label: string; hint?: string; accept: string; min: number; max: number }>;
	looks: AppLook[];
}

export interface RunRecord {
	id: string;
	kind: MediaKind;
	model: string;
	prompt: string;
	options: RunOptions;
	cost: number;
	status: string;
	error: string | null;
	createdAt: number;
	outputs: Array<{ url: string; mime: string; cover?: string; title?: string; lyrics?: string; seconds?: number }>;
	refunded?: number;
}

export const FINAL_STATUSES = ['SUCCEEDED', 'FAILED', 'CANCELED'];

/** A run record as an item's JSON, every field in its order, with a readable `createdDate` beside `createdAt`. */
export function runJson(run: RunRecord): Record<string, unknown> {
	const json: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(run)) {
		json[key] = value;
		if (key === 'createdAt' && Number.isFinite(value)) json.createdDate = new Date(value as number).toISOString();
	}
	return json;
}
