// Checks made before any credit is spent, each naming the field and what is allowed. Pure.
import type { CatalogueModel } from './catalogueTypes';
import { promptLimit } from './resolveOptions';
import { REQUEST_KEY_MAX } from './requestKey';

export const MAX_REFERENCE_IMAGES = 14;
export const NEGATIVE_PROMPT_MAX = 2000;
export const WEBHOOK_URL_MAX = 500;

export interface RequestDraft {
	prompt: string;
	musicMode?: string;
	negativePrompt?: string;
	imageCount: number;
	hasEndFrame: boolean;
	hasAudio: boolean;
	webhookUrl?: string;
	requestKey?: string;
	identity: 'apiKey' | 'anonymous';
	/** Anonymous callers: the catalogue's models the free tier covers, named when another is refused. */
	freeModelIds?: string[];
	/** Max Credits per Execution as entered, if set. */
	maxCredits?: unknown;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The one address check: a full https:// URL. Plain http is accepted only on this machine's loopback
 * (a local sandbox); the service itself refuses it elsewhere.
 */
export function checkHttpsUrl(url: string, field: string, example: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `${field}: "${url.slice(0, 80)}" is not a URL. Use a full https:// address, ${example}.`;
	}
	const loopback = LOOPBACK_HOSTS.includes(parsed.hostname);
	if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
		return `${field}: "${url.slice(0, 80)}" must start with https:// (the service accepts only https addresses).`;
	}
	return undefined;
}

export function checkWebhookUrlShape(url: string): string | undefined {
	if (url.length > WEBHOOK_URL_MAX)
		return `Webhook URL is ${url.length} characters long; the limit is ${WEBHOOK_URL_MAX}.`;
	return checkHttpsUrl(url, 'Webhook URL', 'for example the production URL of a Media Generation Trigger node');
}

export function checkMediaUrls(field: string, urls: string[]): string[] {
	return urls
		.map((url) => checkHttpsUrl(url, field, 'for example a URL returned by File → Upload'))
		.filter((p): p is string => p !== undefined);
}

/** What the model accepts, for the description of a refused request. */
export function describeLimits(model: CatalogueModel, musicMode?: string): string {
	const limit = promptLimit(model, musicMode);
	const prompt = Number.isFinite(limit) ? `prompt up to ${limit} characters` : 'a prompt';
	const images = Math.min(Number(model.reference_images_max) || 0, MAX_REFERENCE_IMAGES);
	return (
		`${model.name} (${model.id}) accepts: ${prompt}, ` +
		`${images ? `at most ${images} reference images` : 'no reference images'}.`
	);
}

/** The models the anonymous free tier covers (free house image engines), by id. */
export function freeTierModelIds(models: CatalogueModel[]): string[] {
	return models.filter((m) => m.free_tier && m.kind === 'image').map((m) => m.id);
}

export function checkRequest(model: CatalogueModel, draft: RequestDraft): string[] {
	const problems: string[] = [];
	if (draft.identity === 'anonymous' && !(model.free_tier && model.kind === 'image')) {
		const free = draft.freeModelIds?.length ? ` (${draft.freeModelIds.join(', ')})` : '';
		problems.push(
			`Model: ${model.name} is not covered by the anonymous free tier, which covers only the free house image ` +
				`engine${free}. Use the Media Generation API credential (API key) or pick the free image model.`,
		);
	}
	const limit = promptLimit(model, draft.musicMode);
	if (!draft.prompt || draft.prompt.trim() === '') problems.push('Prompt is empty. Write at least 1 character.');
	else if (Number.isFinite(limit) && draft.prompt.length > limit) {
		problems.push(
			`Prompt is ${draft.prompt.length} characters long; ` +
				`${model.name}${model.kind === 'music' ? ` in ${draft.musicMode ?? model.defaults.tier} mode` : ''} takes at ` +
				`most ${limit}.`,
		);
	}
	if (draft.negativePrompt) {
		if (model.negative_prompt === false)
			problems.push(`Negative Prompt is not used by ${model.name}; clear it or pick a model that uses one.`);
		else if (draft.negativePrompt.length > NEGATIVE_PROMPT_MAX)
			problems.push(
				`Negative Prompt is ${draft.negativePrompt.length} characters long; the limit is ${NEGATIVE_PROMPT_MAX}.`,
			);
	}
	if (draft.imageCount > 0) {
		const max = Math.min(model.reference_images_max ?? 0, MAX_REFERENCE_IMAGES);
		if (!model.inputs.includes('image') || max === 0) {
			problems.push(`Reference Images: ${model.name} takes no reference images; remove the ${draft.imageCount} given.`);
		} else if (draft.imageCount > max) {
			problems.push(`Reference Images: ${draft.imageCount} given; ${model.name} takes at most ${max}.`);
		}
	}
	if (draft.hasEndFrame && (model.kind !== 'video' || model.end_frame === false)) {
		problems.push(`End Frame: ${model.name} does not support an end frame; remove it.`);
	}
	if (draft.hasAudio && !model.inputs.includes('audio')) {
		problems.push(
			`Driving Audio: ${model.name} does not take audio; only talking-avatar models do. Remove the audio or pick such ` +
				`a model.`,
		);
	}
	if (!draft.hasAudio && model.inputs.includes('audio')) {
		problems.push(
			`Driving Audio: ${model.name} is a talking-avatar model and needs an audio file (binary property or URL).`,
		);
	}
	if (draft.webhookUrl) {
		const p = checkWebhookUrlShape(draft.webhookUrl);
		if (p) problems.push(p);
	}
	if (draft.requestKey !== undefined && draft.requestKey.length > REQUEST_KEY_MAX) {
		problems.push(`Request Key is ${draft.requestKey.length} characters long; the limit is ${REQUEST_KEY_MAX}.`);
	}
	if (draft.maxCredits !== undefined && draft.maxCredits !== '' && draft.maxCredits !== null) {
		const cap = Number(draft.maxCredits);
		if (!Number.isFinite(cap) || cap < 0) {
			problems.push('Max Credits per Execution must be a number of credits, 0 or more (leave it out for no cap).');
		}
	}
	return problems;
}
