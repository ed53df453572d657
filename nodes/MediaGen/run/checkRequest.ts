// Checks made before any credit is spent, each naming the field and what is allowed.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readMaxCredits } from '../../shared/fields';
import type { CatalogueModel } from '../../shared/records';
import { identityOf } from '../../shared/transport';
import { freeTierCovers, getModels } from '../catalogue/catalogue';
import { effectiveOptions, promptLimit } from '../catalogue/modelOptions';
import { defaultRequestKey, REQUEST_KEY_MAX } from './requestKey';
import type { RunRequest } from './runRequest';

/** What an operation reads from an item; checkedRequest adds the rest. */
type ItemRead = Pick<RunRequest, 'itemIndex' | 'model' | 'body' | 'images' | 'endFrame' | 'audio' | 'extraJson'>;
import { readRunSettings } from './runSettings';

const MAX_REFERENCE_IMAGES = 14;
const imagesMax = (model: CatalogueModel) => Math.min(Number(model.reference_images_max) || 0, MAX_REFERENCE_IMAGES);
const NEGATIVE_PROMPT_MAX = 2000;
const RUN_WEBHOOK_MAX_CHARS = 500;
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

/**
 * Every address field: a full https:// URL, plain http only on this machine's loopback (a local sandbox). Addresses
 * the service delivers to have stricter rules: checkWebhookUrl below, and the resume URL's in pause/pauseRuns.ts.
 */
export function checkHttpsUrl(url: string, field: string, example: string): string | undefined {
	const shown = url.slice(0, 80);
	if (!URL.canParse(url)) return `${field}: "${shown}" is not a URL. Use a full https:// address, ${example}.`;
	const { protocol, hostname } = new URL(url);
	if (protocol === 'https:' || (protocol === 'http:' && LOOPBACK_HOSTS.includes(hostname))) return undefined;
	return `${field}: "${shown}" must start with https:// (the service accepts only https addresses).`;
}

/** The service delivers finished runs only to https addresses on public hosts (its delivery rules). */
export function checkWebhookUrl(url: string, apiBaseUrl: string): string | undefined {
	if (url.length > RUN_WEBHOOK_MAX_CHARS)
		return `Webhook URL is ${url.length} characters long; the limit is ${RUN_WEBHOOK_MAX_CHARS}.`;
	const shape = checkHttpsUrl(url, 'Webhook URL', 'for example the Production URL of a Media Generation Trigger');
	if (shape) return shape;
	const host = new URL(url).hostname;
	// A service on that same private host (a local sandbox) can reach it.
	if (isPrivateHost(host) && !(URL.canParse(apiBaseUrl) && new URL(apiBaseUrl).hostname === host)) {
		return (
			`Webhook URL: ${host} is a private or local address, and the service delivers only to public https ` +
			`addresses. Use an address the internet can reach, for example the Production URL of a Media Generation ` +
			`Trigger on an n8n with a public address.`
		);
	}
	return undefined;
}

/** What the model accepts with these options, for a refusal's description. */
export function describeLimits(model: CatalogueModel, options?: Record<string, unknown>): string {
	const limit = promptLimit(model, options);
	const prompt = Number.isFinite(limit) ? `prompt up to ${limit} characters` : 'a prompt';
	const images = imagesMax(model);
	return `${model.name} (${model.id}) accepts: ${prompt}, ${images ? `at most ${images}` : 'no'} reference images.`;
}

/** The request against its model, and against the free tier for an anonymous ID (`freeModelIds`: the tier's models). */
export function checkRequest(
	{ model, body, images, endFrame, audio }: Pick<RunRequest, 'model' | 'body' | 'images' | 'endFrame' | 'audio'>,
	identity: 'apiKey' | 'anonymous',
	freeModelIds?: string[],
): string[] {
	const problems: string[] = [];
	if (identity === 'anonymous' && !freeTierCovers(model)) {
		const free = freeModelIds?.length ? ` (${freeModelIds.join(', ')})` : '';
		problems.push(
			`Model: ${model.name} is not covered by the anonymous free tier, which covers only the free house image ` +
				`engine${free}. Use the Media Generation API credential (API key) or pick the free image model.`,
		);
	}
	const prompt = String(body.prompt ?? '');
	const options = body.options as Record<string, unknown> | undefined;
	const { musicMode } = effectiveOptions(model, options);
	const limit = promptLimit(model, options);
	if (prompt.trim() === '') problems.push('Prompt is empty. Write at least 1 character.');
	else if (Number.isFinite(limit) && prompt.length > limit) {
		const mode = musicMode === undefined ? '' : ` in ${musicMode} mode`;
		problems.push(`Prompt is ${prompt.length} characters long; ${model.name}${mode} takes at most ${limit}.`);
	}
	const negativePrompt = String(body.negativePrompt ?? '');
	if (negativePrompt && model.negative_prompt === false)
		problems.push(`Negative Prompt is not used by ${model.name}; clear it or pick a model that uses one.`);
	else if (negativePrompt.length > NEGATIVE_PROMPT_MAX)
		problems.push(`Negative Prompt is ${negativePrompt.length} characters long; the limit is ${NEGATIVE_PROMPT_MAX}.`);
	const max = imagesMax(model);
	if (images.length && (!model.inputs.includes('image') || max === 0))
		problems.push(`Reference Images: ${model.name} takes no reference images; remove the ${images.length} given.`);
	else if (images.length > max)
		problems.push(`Reference Images: ${images.length} given; ${model.name} takes at most ${max}.`);
	if (endFrame && (model.kind !== 'video' || model.end_frame === false))
		problems.push(`End Frame: ${model.name} does not support an end frame; remove it.`);
	if (audio && !model.inputs.includes('audio'))
		problems.push(
			`Driving Audio: ${model.name} does not take audio; only talking-avatar models do. Remove the audio or pick ` +
				'such a model.',
		);
	else if (!audio && model.inputs.includes('audio'))
		problems.push(
			`Driving Audio: ${model.name} is a talking-avatar model and needs an audio file (binary property or URL).`,
		);
	return problems;
}

/** Checks of the Additional Fields that do not depend on the model (Webhook URL, Request Key, cap). */
export function checkSettings(fields: IDataObject, apiBaseUrl: string): string[] {
	const problems: string[] = [];
	const webhookUrl = String(fields.webhookUrl ?? '').trim();
	const requestKey = String(fields.requestKey ?? '').trim();
	const webhookProblem = webhookUrl ? checkWebhookUrl(webhookUrl, apiBaseUrl) : undefined;
	if (webhookProblem) problems.push(webhookProblem);
	if (requestKey.length > REQUEST_KEY_MAX)
		problems.push(`Request Key is ${requestKey.length} characters long; the limit is ${REQUEST_KEY_MAX}.`);
	const cap = readMaxCredits(fields);
	if (cap !== undefined && !(Number.isFinite(cap) && cap >= 0))
		problems.push(
			`Max Credits per Execution is ${JSON.stringify(fields.maxCredits)}; enter a number of credits, 0 or more, ` +
				`or remove the field for no cap.`,
		);
	return problems;
}

/**
 * The item's request checked against its model and its Additional Fields as entered, with its key, settings and cap.
 * One refusal names every problem, the operation's own (`problems`) first, and the model's limits only when a problem
 * is about one (beside a free-tier refusal they would read as a second, unrelated reason).
 */
export async function checkedRequest(
	ctx: IExecuteFunctions,
	read: ItemRead,
	fields: IDataObject,
	problems: string[] = [],
): Promise<RunRequest> {
	const identity = await identityOf(ctx);
	const freeModelIds =
		identity.kind === 'anonymous' ? (await getModels(ctx)).filter(freeTierCovers).map((m) => m.id) : undefined;
	problems.push(...checkRequest(read, identity.kind, freeModelIds), ...checkSettings(fields, identity.baseUrl));
	for (const source of [...read.images, read.endFrame, read.audio]) {
		if (!source || !('url' in source)) continue;
		const problem = checkHttpsUrl(source.url, source.field, 'for example a URL returned by File → Upload');
		if (problem) problems.push(problem);
	}
	if (problems.length) {
		const message = problems.length === 1 ? problems[0] : `${problems.length} problems: ${problems.join(' ')}`;
		const aboutLimits = problems.some((p) => /^(Prompt is \d|Reference Images: \d)/.test(p));
		const options = read.body.options as Record<string, unknown>;
		const description = aboutLimits ? describeLimits(read.model, options) : undefined;
		throw new NodeOperationError(ctx.getNode(), message, { description, itemIndex: read.itemIndex });
	}
	const text = (name: string) => String(fields[name] ?? '').trim() || undefined;
	const body: IDataObject = { ...read.body };
	if (text('webhookUrl')) body.webhookUrl = text('webhookUrl');
	body.requestKey = text('requestKey') ?? defaultRequestKey(ctx, read.itemIndex);
	const settings = readRunSettings(ctx, read.itemIndex);
	return { ...read, body, settings, typedKey: text('requestKey') !== undefined, maxCredits: readMaxCredits(fields) };
}
