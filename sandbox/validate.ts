// Request validation: the body's shape with zod, then every rule the spec states for a model.
// Every problem is collected, so `issues` lists them all at once.
import { z } from 'zod';

import type { Model, Options } from './types';

const optionsSchema = z
	.object({
		resolution: z.string({ required_error: 'options.resolution is required' }).min(1, 'options.resolution is required'),
		aspect: z.string().optional(),
		tier: z.string().optional(),
		duration: z.number().int('options.duration must be a whole number of seconds').optional(),
		format: z.enum(['PNG', 'JPG', 'WEBP']).optional(),
		audio: z.boolean().optional(),
		style: z.string().max(1000, 'options.style is longer than 1000 characters').optional(),
		title: z.string().max(80, 'options.title is longer than 80 characters').optional(),
		vocal: z.enum(['m', 'f']).optional(),
	})
	// v1 only adds fields: an option key a model lists in its catalogue entry (say "fps") is accepted.
	.catchall(z.union([z.string(), z.number(), z.boolean()]));

export const generationRequestSchema = z
	.object({
		kind: z.enum(['image', 'video', 'music']),
		model: z.string().min(1),
		prompt: z.string().min(1, 'prompt must have at least 1 character'),
		options: optionsSchema,
		negativePrompt: z.string().max(2000, 'negativePrompt is longer than 2000 characters').optional(),
		imageUrls: z
			.array(z.string().url('imageUrls must hold URLs'))
			.max(14, 'imageUrls holds more than 14 items')
			.optional(),
		endImageUrl: z.string().url('endImageUrl must be a URL').optional(),
		audioUrl: z.string().url('audioUrl must be a URL').optional(),
		webhookUrl: z
			.string()
			.url('webhookUrl must be a URL')
			.max(500, 'webhookUrl is longer than 500 characters')
			.optional(),
		requestKey: z.string().min(1).max(120, 'requestKey is longer than 120 characters').optional(),
	})
	.strict();

export type GenerationRequest = z.infer<typeof generationRequestSchema>;

export const uploadRequestSchema = z
	.object({
		mime: z.string().min(1),
		bytes: z.number().int().positive('bytes must be a positive whole number'),
	})
	.strict();

export function zodIssues(error: z.ZodError): string[] {
	return error.issues.map((i) => {
		const path = i.path.join('.');
		return i.message.startsWith(path) || !path ? i.message : `${path}: ${i.message}`;
	});
}

/** Problems with the request for this model (options allowed, limits, inputs). */
export function checkAgainstModel(req: GenerationRequest, model: Model): string[] {
	const issues: string[] = [];
	const o = req.options as Options;
	if (req.kind !== model.kind) issues.push(`model ${model.id} makes ${model.kind}, not ${req.kind}`);
	const allowed = model.options;
	const listCheck = <T>(name: keyof typeof allowed, value: T | undefined) => {
		if (value === undefined) return;
		const list = allowed[name] as T[] | null;
		if (list === null || list === undefined) issues.push(`options.${name} is not accepted by model ${model.id}`);
		else if (!list.includes(value)) issues.push(`options.${name} must be one of ${list.join(', ')}`);
	};
	listCheck('resolution', o.resolution);
	listCheck('aspect', o.aspect);
	listCheck('tier', o.tier);
	listCheck('duration', o.duration);
	listCheck('format', o.format);
	listCheck('audio', o.audio);
	const known = ['resolution', 'aspect', 'tier', 'duration', 'format', 'audio', 'style', 'title', 'vocal'];
	const given = req.options as Record<string, unknown>;
	for (const name of Object.keys(given).filter((k) => !known.includes(k))) {
		const list = (allowed as Record<string, unknown>)[name];
		if (!Array.isArray(list)) issues.push(`options.${name} is not an option of model ${model.id}`);
		else if (!list.includes(given[name])) issues.push(`options.${name} must be one of ${list.join(', ')}`);
	}
	let promptMax = model.prompt_max_chars;
	if (model.kind === 'music' && model.music) {
		const mode = o.tier ?? model.defaults.tier ?? 'Describe';
		promptMax = model.music.prompt_max_chars_by_mode[mode] ?? promptMax;
		issues.push(...musicOptionIssues(o, model.music, mode));
	} else {
		for (const musicOnly of ['style', 'title', 'vocal'] as const) {
			if (o[musicOnly] !== undefined) issues.push(`options.${musicOnly} is used only by music models`);
		}
	}
	if (req.prompt.length > promptMax) issues.push(`prompt is longer than ${promptMax} characters`);
	if (req.negativePrompt !== undefined && model.negative_prompt === false) {
		issues.push(`negativePrompt is not used by model ${model.id}`);
	}
	const images = req.imageUrls ?? [];
	const maxImages = model.reference_images_max;
	if (images.length > 0 && !model.inputs.includes('image')) {
		issues.push(`model ${model.id} takes no reference images`);
	} else if (images.length > maxImages) {
		issues.push(`imageUrls holds ${images.length} items; model ${model.id} takes at most ${maxImages}`);
	}
	if (req.endImageUrl !== undefined && (model.kind !== 'video' || model.end_frame === false)) {
		issues.push(`endImageUrl is not supported by model ${model.id}`);
	}
	if (req.audioUrl !== undefined && !model.inputs.includes('audio')) {
		const rule = 'audioUrl is accepted only by talking-avatar models (inputs contain audio)';
		issues.push(`${rule}; ${model.id} does not take audio`);
	}
	if (model.inputs.includes('audio') && req.audioUrl === undefined) {
		issues.push(`model ${model.id} needs driving audio in audioUrl`);
	}
	return issues;
}

/** Style, title and vocal of a music run: each belongs to some modes only and has its own limit. */
function musicOptionIssues(o: Options, music: NonNullable<Model['music']>, mode: string): string[] {
	const issues: string[] = [];
	if (o.style !== undefined) {
		if (mode === 'Instrumental') issues.push('options.style is used only in Describe and Lyrics modes');
		else if (o.style.length > music.style_max_chars) {
			issues.push(`options.style is longer than ${music.style_max_chars} characters`);
		}
	}
	if (o.title !== undefined) {
		if (mode === 'Describe') issues.push('options.title is used only in Lyrics and Instrumental modes');
		else if (o.title.length > music.title_max_chars) {
			issues.push(`options.title is longer than ${music.title_max_chars} characters`);
		}
	}
	if (o.vocal !== undefined) {
		if (mode !== 'Lyrics') issues.push('options.vocal is used only in Lyrics mode');
		else if (!music.vocal.includes(o.vocal)) issues.push(`options.vocal must be one of ${music.vocal.join(', ')}`);
	}
	return issues;
}

const PRIVATE_V4 = [
	/^10\./,
	/^127\./,
	/^169\.254\./,
	/^192\.168\./,
	/^172\.(1[6-9]|2\d|3[01])\./,
	/^0\./,
	/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
];

/** webhookUrl: https on a public host (sandbox relaxation: http(s)://127.0.0.1 / localhost when allowed). */
export function checkWebhookUrl(url: string, allowLoopback: boolean): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return 'webhookUrl must be a URL';
	}
	const host = parsed.hostname.replace(/^\[|\]$/g, '');
	const loopback = host === 'localhost' || host.startsWith('127.') || host === '::1';
	if (loopback && allowLoopback) return undefined;
	if (parsed.protocol !== 'https:') return 'webhookUrl must use https';
	if (loopback || PRIVATE_V4.some((r) => r.test(host)) || /^(fc|fd|fe80)/i.test(host) || !host.includes('.')) {
		return 'webhookUrl must point to a public host';
	}
	return undefined;
}

export const ACCEPTED_UPLOAD_TYPES: Record<string, 'image' | 'video' | 'audio'> = {
	'image/png': 'image',
	'image/jpeg': 'image',
	'image/webp': 'image',
	'video/mp4': 'video',
	'video/quicktime': 'video',
	'audio/mpeg': 'audio',
	'audio/wav': 'audio',
	'audio/x-wav': 'audio',
	'audio/mp4': 'audio',
	'audio/x-m4a': 'audio',
};

/** The spec's caps in megabytes (1 MB = 1,000,000 bytes). */
export const UPLOAD_CAPS = { image: 10_000_000, video: 50_000_000, audio: 50_000_000 };
