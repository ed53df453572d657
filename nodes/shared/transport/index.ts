// The one place that speaks HTTP to the Media Generation API: identity, error mapping,
// automatic waits (Retry-After, rate-limit headers) and safe retries.
import { createHash } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import {
	describeAnonymousIdProblem,
	describeApiKeyProblem,
	describeBaseUrlProblem,
	normaliseBaseUrl,
} from '../../../credentials/shapes';
import { describeApiError, redactSecrets } from './errors';
import { acquireRateBudget, type RateBucket } from './rateGate';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

export type CredentialKind = 'apiKey' | 'anonymous';

export const CREDENTIAL_TYPES: Record<CredentialKind, string> = {
	apiKey: 'mediaGenApi',
	anonymous: 'mediaGenAnonymousApi',
};

export interface Identity {
	kind: CredentialKind;
	credentialType: string;
	baseUrl: string;
	/** A hash of the secret, never the secret: keys caches and rate budgets per identity. */
	fingerprint: string;
	/** Values that must never reach output, errors or logs. */
	secrets: string[];
}

function readCredentialKind(ctx: ApiContext): CredentialKind {
	try {
		// Item-based contexts take an item index; dropdowns and webhooks read the node's value directly.
		const value =
			'getInputData' in ctx
				? ctx.getNodeParameter('authentication', 0, 'apiKey')
				: (ctx as ILoadOptionsFunctions).getNodeParameter('authentication', 'apiKey');
		return value === 'anonymous' ? 'anonymous' : 'apiKey';
	} catch {
		return 'apiKey';
	}
}

/** Reads and shape-checks the credential before any request is sent. */
export async function getIdentity(ctx: ApiContext): Promise<Identity> {
	const kind = readCredentialKind(ctx);
	const credentialType = CREDENTIAL_TYPES[kind];
	const credentials = await ctx.getCredentials(credentialType);
	const secret = kind === 'apiKey' ? credentials.apiKey : credentials.secretAnonymousId;
	const problem =
		describeBaseUrlProblem(credentials.baseUrl) ??
		(kind === 'apiKey' ? describeApiKeyProblem(secret) : describeAnonymousIdProblem(secret));
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), problem, {
			description:
				`Open the ${kind === 'apiKey' ? 'Media Generation API' : 'Media Generation Anonymous'} credential ` +
				'and correct it.',
		});
	}
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	const secretText = String(secret).trim();
	return {
		kind,
		credentialType,
		baseUrl,
		fingerprint: createHash('sha256').update(`${baseUrl}|${kind}|${secretText}`).digest('hex').slice(0, 16),
		secrets: [secretText],
	};
}

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** Per-attempt time limit in ms. */
	timeoutMs?: number;
	/** Retries after a dropped connection, a time-out or a 5xx. Only safe for reads, or writes with a requestKey. */
	retryTransient?: number;
	/** Upper bound for one wait demanded by Retry-After; past it the node gives up with a clear error. */
	maxRetryAfterMs?: number;
	/** Epoch ms after which no wait starts: Retry-After and retry pauses that would pass it end the request. */
	deadline?: number;
	/** Checks a 2xx answer's shape; returns what is missing, or undefined when the answer is usable. */
	expect?: (body: unknown) => string | undefined;
	itemIndex?: number;
}

export interface ApiResponse<T> {
	body: T;
	statusCode: number;
	headers: Record<string, string>;
}

export class MediaGenApiError extends NodeApiError {
	code = '';
}

/** Requests that never got an answer (refused, dropped, timed out): they may or may not have been processed. */
const unanswered = new WeakSet<object>();

export function isNoAnswer(error: unknown): boolean {
	return typeof error === 'object' && error !== null && unanswered.has(error);
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;
const MAX_429_WAITS = 5;

/** What to do after a 429 the node stopped waiting out, saying truly how long it waited. */
function rateLimitAdvice(retryAfter: number, waits: number, waitedMs: number, maxWaitMs: number): string {
	const asked = `The service asked to wait ${Math.ceil(retryAfter)} s`;
	const waited = waits
		? `The node already waited ${waits} time${waits === 1 ? '' : 's'} (${Math.round(waitedMs / 1000)} s in all).`
		: 'The node did not wait.';
	const why =
		retryAfter * 1000 > maxWaitMs
			? `, longer than this node waits at once (${Math.round(maxWaitMs / 1000)} s).`
			: ", and waiting would pass this step's time limit or it kept asking.";
	return `${asked}${why} ${waited} Wait a few minutes and run again, or send fewer requests at once.`;
}

function bucketFor(req: ApiRequest): RateBucket {
	if (req.method === 'POST' && req.path === '/generations') return 'submit';
	if (req.method === 'POST' && req.path === '/uploads') return 'upload';
	return 'read';
}

function cancelSignal(ctx: ApiContext): AbortSignal | undefined {
	const fn = (ctx as IExecuteFunctions).getExecutionCancelSignal;
	return typeof fn === 'function' ? fn.call(ctx) : undefined;
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	if (headers && typeof headers === 'object') {
		for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
			out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
		}
	}
	return out;
}

/** Seconds from a Retry-After header (seconds or an HTTP date); undefined when absent. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

export function isTransportFailure(error: unknown): boolean {
	const e = error as { code?: string; cause?: { code?: string }; message?: string; httpCode?: string | null };
	const code = e?.cause?.code ?? e?.code ?? '';
	if (
		[
			'ECONNRESET',
			'ECONNREFUSED',
			'ETIMEDOUT',
			'ECONNABORTED',
			'EPIPE',
			'ERR_BAD_RESPONSE',
			'EAI_AGAIN',
			'ESOCKETTIMEDOUT',
		].includes(code)
	)
		return true;
	return /socket hang up|timeout|ECONNRESET|ECONNREFUSED|aborted|network/i.test(String(e?.message ?? ''));
}

export function apiError(
	node: INode,
	statusCode: number,
	body: unknown,
	identity: Identity | undefined,
	itemIndex?: number,
	context: IDataObject = {},
): MediaGenApiError {
	const described = describeApiError(statusCode, body);
	const secrets = identity?.secrets ?? [];
	const safeBody = JSON.parse(redactSecrets(JSON.stringify(body ?? {}), secrets)) as JsonObject;
	const error = new MediaGenApiError(node, safeBody, {
		message: redactSecrets(described.message, secrets),
		description: redactSecrets(described.description, secrets),
		httpCode: String(statusCode),
		itemIndex,
	});
	error.code = described.code;
	Object.assign(error.context, { errorCode: described.code, issues: described.issues, ...context });
	return error;
}

/** Sleeps unless that would pass the deadline; returns false (without sleeping) when it would. */
async function pause(ms: number, deadline: number | undefined, signal?: AbortSignal): Promise<boolean> {
	if (deadline !== undefined && Date.now() + ms > deadline) return false;
	await sleep(ms, signal);
	return true;
}

function describeRoute(req: ApiRequest): string {
	return `${req.method} ${req.path.replace(/^\/generations\/[^/?]+/, '/generations/{id}')}`;
}

/** Routes that always exist on the v1 root: a 404 there means the Base URL points somewhere else. */
function isFixedRoute(req: ApiRequest): boolean {
	return !req.path.startsWith('/generations/');
}

function baseUrlHint(baseUrl: string): string {
	const v1 = /\/v1$/.test(baseUrl) ? '' : " It does not end in /v1; the API's version 1 root usually does.";
	return `Check the Base URL in the credential (now ${baseUrl}): it must be the API's version 1 root.${v1}`;
}

function unexpectedAnswer(
	ctx: ApiContext,
	req: ApiRequest,
	id: Identity,
	statusCode: number,
	problem: string,
	body: unknown,
) {
	const error = apiError(ctx.getNode(), statusCode, { error: 'unexpected_answer' }, id, req.itemIndex);
	error.message = `The service's answer to ${describeRoute(req)} is not what this node expects: ${problem}`;
	error.description = `${baseUrlHint(id.baseUrl)} If it is right, the service may be having trouble: try again later.`;
	error.code = 'unexpected_answer';
	const shown = redactSecrets(JSON.stringify(body ?? null), id.secrets).slice(0, 300);
	Object.assign(error.context, { errorCode: 'unexpected_answer', answer: shown });
	return error;
}

/**
 * Sends one API request and returns the parsed answer, or throws a NodeApiError in plain words.
 * Waits out 429 (Retry-After, bounded), and retries transient failures when the caller says it is safe.
 */
export async function apiRequest<T = IDataObject>(
	ctx: ApiContext,
	req: ApiRequest,
	identity?: Identity,
): Promise<ApiResponse<T>> {
	const id = identity ?? (await getIdentity(ctx));
	const signal = cancelSignal(ctx);
	const bucket = bucketFor(req);
	let transientLeft = req.retryTransient ?? 0;
	let waits429 = 0;
	let waitedMs = 0;
	for (;;) {
		const release = await acquireRateBudget(id.fingerprint, bucket, signal, req.deadline);
		const options: IHttpRequestOptions = {
			method: req.method,
			baseURL: id.baseUrl,
			url: req.path,
			qs: req.qs,
			body: req.body,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: req.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			disableFollowRedirect: true,
		};
		let response: { body: unknown; statusCode: number; headers: unknown };
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				id.credentialType,
				options,
			)) as typeof response;
		} catch (error) {
			release();
			if (signal?.aborted)
				throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled while a request was under way', {
					itemIndex: req.itemIndex,
				});
			if (transientLeft > 0 && isTransportFailure(error) && (await pause(1000, req.deadline, signal))) {
				transientLeft--;
				continue;
			}
			const reason = redactSecrets(String((error as Error)?.message ?? error), id.secrets);
			const noAnswer = new NodeOperationError(
				ctx.getNode(),
				`No answer from the Media Generation API to ${describeRoute(req)}: ${reason}`,
				{
					description: `${baseUrlHint(id.baseUrl)} Also check that the service is reachable from n8n.`,
					itemIndex: req.itemIndex,
				},
			);
			unanswered.add(noAnswer);
			throw noAnswer;
		}
		const headers = lowerCaseHeaders(response.headers);
		release(headers);
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) {
			const problem = req.expect?.(response.body);
			if (problem) throw unexpectedAnswer(ctx, req, id, statusCode, problem, response.body);
			return { body: response.body as T, statusCode, headers };
		}
		// The error table says what may be repeated: 'wait' (after Retry-After), 'once', or 'never'.
		const { retryable } = describeApiError(statusCode, response.body);
		if (statusCode === 429) {
			const retryAfter = parseRetryAfter(headers['retry-after']) ?? 5;
			const maxWait = req.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
			const mayWait = retryable === 'wait' && retryAfter * 1000 <= maxWait && waits429 < MAX_429_WAITS;
			if (mayWait && (await pause(Math.ceil(retryAfter * 1000), req.deadline, signal))) {
				waits429++;
				waitedMs += Math.ceil(retryAfter * 1000);
				continue;
			}
			const error = apiError(ctx.getNode(), statusCode, response.body, id, req.itemIndex, {
				retryAfterSeconds: retryAfter,
			});
			if (retryable === 'wait') error.description = rateLimitAdvice(retryAfter, waits429, waitedMs, maxWait);
			throw error;
		}
		// 'once' (provider, server_error, 503s, unknown 5xx): sent again with the same requestKey, as the
		// spec asks, where the caller says it is safe; 503s are "retry later", uncharged, so the pause is longer.
		const again = retryable === 'once' && transientLeft > 0;
		if (again && (await pause(statusCode === 503 ? 2000 : 1000, req.deadline, signal))) {
			transientLeft--;
			continue;
		}
		const error = apiError(ctx.getNode(), statusCode, response.body, id, req.itemIndex);
		if (statusCode === 404 && isFixedRoute(req)) {
			error.message = `The service has no ${describeRoute(req)} at ${id.baseUrl}`;
			error.description = baseUrlHint(id.baseUrl);
		}
		throw error;
	}
}
