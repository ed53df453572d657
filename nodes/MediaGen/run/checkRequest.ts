// Checks made before any credit is spent, each naming the field and what is allowed. Pure.
import type { CatalogueModel } from '../../shared/records';
import { freeTierCovers } from '../catalogue/catalogue';
import { promptLimit } from '../catalogue/modelOptions';
import { REQUEST_KEY_MAX } from './requestKey';

export const MAX_REFERENCE_IMAGES = 14;
export const NEGATIVE_PROMPT_MAX = 2000;
export const RUN_WEBHOOK_MAX_CHARS = 500;

export interface RequestDraft {
	prompt: string;
	musicMode?: string;
	negativePrompt?: string;
	imageCount: number;
	hasEndFrame: boolean;
	hasAudio: boolean;
	identity: 'apiKey' | 'anonymous';
	/** Anonymous callers: the catalogue's models the free tier covers, named when another is refused. */
	freeModelIds?: string[];
}

/** The fields of a run request that do not depend on the model. */
export interface SettingsDraft {
	webhookUrl?: string;
	requestKey?: string;
	/** Max Credits per Execution as entered, if set. */
	maxCredits?: unknown;
	/** The API's Base URL: a service on a local or private host (the sandbox) can reach addresses there. */
	apiBaseUrl: string;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

const PRIVATE_HOST = new RegExp(
	[
		'^(localhost|0\\.0\\.0\\.0|127(\\.\\d+){3}|10(\\.\\d+){3}|192\\.168(\\.\\d+){2}',
		'172\\.(1[6-9]|2\\d|3[01])(\\.\\d+){2}|169\\.254(\\.\\d+){2}',
		'100\\.(6[4-9]|[7-9]\\d|1[01]\\d|12[0-7])(\\.\\d+){2}',
		'\\[(::1?|f[cd][0-9a-f]*:.*|fe80:.*)\\])$',
	].join('|'),
	'i',
);

/** Loopback, private-range, link-local and local-name hosts: the service cannot deliver there. */
export function isPrivateHost(host: string): boolean {
	return PRIVATE_HOST.test(host) || /\.(local|internal|localhost)$/i.test(host);
}

/** Whether the service at `apiBaseUrl` runs on that same private host (a local sandbox), so it can reach it. */
function serviceIsOnHost(apiBaseUrl: string, host: string): boolean {
	try {
		return new URL(apiBaseUrl).hostname === host;
	} catch {
		return false;
	}
}

/**
 * The shape check of every address field: a full https:// URL. Plain http is accepted only on this machine's loopback
 * (a local sandbox); the service itself refuses it elsewhere. Addresses the service delivers to have stricter rules:
 * checkWebhookUrl below, and the resume URL's in pause/pauseRuns.ts.
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

/** The service delivers finished runs only to https addresses on public hosts (its delivery rules). */
export function checkWebhookUrl(url: string, apiBaseUrl: string): string | undefined {
	if (url.length > RUN_WEBHOOK_MAX_CHARS)
		return `Webhook URL is ${url.length} characters long; the limit is ${RUN_WEBHOOK_MAX_CHARS}.`;
	const shape = checkHttpsUrl(url, 'Webhook URL', 'for example the Production URL of a Media Generation Trigger');
	if (shape) return shape;
	const host = new URL(url).hostname;
	if (isPrivateHost(host) && !serviceIsOnHost(apiBaseUrl, host)) {
		return (
			`Webhook URL: ${host} is a private or local address, and the service delivers only to public https ` +
			`addresses. Use an address the internet can reach, for example the Production URL of a Media Generation ` +
			`Trigger on an n8n with a public address.`
		);
	}
	return undefined;
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

/**
 * The model's limits for a refused request's description, only when a problem is about a limit (the prompt's
 * length, the number of reference images): beside a free-tier refusal they would read as a second, unrelated reason.
 */
export function limitsHelp(model: CatalogueModel, musicMode: string | undefined, problems: string[]): string {
	const aboutLimits = problems.some((p) => /^(Prompt is \d|Reference Images: \d)/.test(p));
	return aboutLimits ? ` ${describeLimits(model, musicMode)}` : '';
}

export function checkRequest(model: CatalogueModel, draft: RequestDraft): string[] {
	const problems: string[] = [];
	if (draft.identity === 'anonymous' && !freeTierCovers(model)) {
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
	return problems;
}

/** Checks of the fields that do not depend on the model: Webhook URL, Request Key, Max Credits. */
export function checkSettings(draft: SettingsDraft): string[] {
	const problems: string[] = [];
	if (draft.webhookUrl) {
		const p = checkWebhookUrl(draft.webhookUrl, draft.apiBaseUrl);
		if (p) problems.push(p);
	}
	if (draft.requestKey !== undefined && draft.requestKey.length > REQUEST_KEY_MAX) {
		problems.push(`Request Key is ${draft.requestKey.length} characters long; the limit is ${REQUEST_KEY_MAX}.`);
	}
	if (draft.maxCredits !== undefined && draft.maxCredits !== '' && draft.maxCredits !== null) {
		const cap = Number(draft.maxCredits);
		if (!Number.isFinite(cap) || cap < 0) {
			problems.push(
				`Max Credits per Execution is ${JSON.stringify(draft.maxCredits)}; enter a number of credits, 0 or more, ` +
					`or remove the field for no cap.`,
			);
		}
	}
	return problems;
}
