// Checks made before any credit is spent, each naming the field and what is allowed. Pure.
import type { CatalogueModel } from './catalogueTypes';
import { promptLimit } from './resolveOptions';

export const MAX_REFERENCE_IMAGES = 14;
export const NEGATIVE_PROMPT_MAX = 2000;
export const WEBHOOK_URL_MAX = 500;
export const REQUEST_KEY_MAX = 120;

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
}

export function checkWebhookUrlShape(url: string): string | undefined {
	if (url.length > WEBHOOK_URL_MAX) return `Webhook URL is ${url.length} characters long; the limit is ${WEBHOOK_URL_MAX}.`;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return 'Webhook URL is not a valid URL. Use a full https:// address, for example the production URL of a Media Generation Trigger node.';
	}
	const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
	if (parsed.protocol !== 'https:' && !loopback) {
		return 'Webhook URL must start with https:// (the service delivers only to https addresses on public hosts).';
	}
	return undefined;
}

export function checkRequest(model: CatalogueModel, draft: RequestDraft): string[] {
	const problems: string[] = [];
	if (draft.identity === 'anonymous' && !(model.free_tier && model.kind === 'image')) {
		problems.push(
			`Model: ${model.name} is not covered by the anonymous free tier, which covers only the free house image engine. Use the Media Generation API credential (API key) or pick the free image model.`,
		);
	}
	const limit = promptLimit(model, draft.musicMode);
	if (!draft.prompt || draft.prompt.trim() === '') problems.push('Prompt is empty. Write at least 1 character.');
	else if (draft.prompt.length > limit) {
		problems.push(
			`Prompt is ${draft.prompt.length} characters long; ${model.name}${model.kind === 'music' ? ` in ${draft.musicMode ?? model.defaults.tier} mode` : ''} takes at most ${limit}.`,
		);
	}
	if (draft.negativePrompt) {
		if (model.negative_prompt === false) problems.push(`Negative Prompt is not used by ${model.name}; clear it or pick a model that uses one.`);
		else if (draft.negativePrompt.length > NEGATIVE_PROMPT_MAX) problems.push(`Negative Prompt is ${draft.negativePrompt.length} characters long; the limit is ${NEGATIVE_PROMPT_MAX}.`);
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
		problems.push(`Driving Audio: ${model.name} does not take audio; only talking-avatar models do. Remove the audio or pick such a model.`);
	}
	if (!draft.hasAudio && model.inputs.includes('audio')) {
		problems.push(`Driving Audio: ${model.name} is a talking-avatar model and needs an audio file (binary property or URL).`);
	}
	if (draft.webhookUrl) {
		const p = checkWebhookUrlShape(draft.webhookUrl);
		if (p) problems.push(p);
	}
	if (draft.requestKey !== undefined && draft.requestKey.length > REQUEST_KEY_MAX) {
		problems.push(`Request Key is ${draft.requestKey.length} characters long; the limit is ${REQUEST_KEY_MAX}.`);
	}
	return problems;
}
