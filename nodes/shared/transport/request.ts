// The request loop: one API request sent, waited out (Retry-After, rate-limit headers) and sent again where
// that is safe, until it is answered or fails with a MediaGenApiError in plain words.
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	apiError,
	type MediaGenApiError,
	missingRouteError,
	noAnswerError,
	rateLimitAdvice,
	unexpectedAnswerError,
} from './apiError';
import { describeApiError, ERROR_ADVICE } from './errorTable';
import { isTransportFailure } from './failureClasses';
import { identityOf, type ApiContext } from './identity';
import { acquireRateBudget, type RateBucket } from './rateGate';
import { sleepUnlessAborted } from './sleep';

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
	/** An earlier try of this request got no answer (it may have been handled) before this answer came. */
	answerLostBefore: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;
const MAX_429_WAITS = 5;

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

/** True when an error answer names a code of the service's error table other than not_found. */
function carriesServiceCode(body: unknown): boolean {
	const code = (body as { error?: unknown } | null)?.error;
	return typeof code === 'string' && code !== 'not_found' && Object.hasOwn(ERROR_ADVICE, code);
}

/** Sleeps unless that would pass the deadline; returns false (without sleeping) when it would. */
async function pause(ms: number, deadline: number | undefined, signal?: AbortSignal): Promise<boolean> {
	if (deadline !== undefined && Date.now() + ms > deadline) return false;
	await sleepUnlessAborted(ms, signal);
	return true;
}

/**
 * Sends one API request and returns the parsed answer, or throws a NodeApiError in plain words.
 * Waits out 429 (Retry-After, bounded), and retries transient failures when the caller says it is safe.
 */
export async function apiRequest<T = IDataObject>(ctx: ApiContext, req: ApiRequest): Promise<ApiResponse<T>> {
	const id = await identityOf(ctx);
	const signal = cancelSignal(ctx);
	const bucket = bucketFor(req);
	let transientLeft = req.retryTransient ?? 0;
	let waits429 = 0;
	let waitedMs = 0;
	let answerLost = false;
	const afterTries = <E extends MediaGenApiError>(error: E): E => {
		error.answerLostBefore = answerLost;
		return error;
	};
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
				answerLost = true;
				continue;
			}
			throw noAnswerError(ctx.getNode(), req, id, error);
		}
		const headers = lowerCaseHeaders(response.headers);
		release(headers);
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) {
			const problem = req.expect?.(response.body);
			if (problem) throw afterTries(unexpectedAnswerError(ctx.getNode(), req, id, statusCode, problem, response.body));
			return { body: response.body as T, statusCode, headers, answerLostBefore: answerLost };
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
			throw afterTries(
				apiError(ctx.getNode(), statusCode, response.body, id, req.itemIndex, {
					context: { retryAfterSeconds: retryAfter },
					description: retryable === 'wait' ? rateLimitAdvice(retryAfter, waits429, waitedMs, maxWait) : undefined,
				}),
			);
		}
		// 'once' (provider, server_error, 503s, unknown 5xx): sent again with the same requestKey, as the
		// spec asks, where the caller says it is safe; 503s are "retry later", uncharged, so the pause is longer.
		const again = retryable === 'once' && transientLeft > 0;
		if (again && (await pause(statusCode === 503 ? 2000 : 1000, req.deadline, signal))) {
			transientLeft--;
			continue;
		}
		// A 404 on a route that always exists (all but a run's own) means the Base URL points somewhere else,
		// unless it carries one of the service's own codes (other than not_found), which then says what happened.
		if (statusCode === 404 && !req.path.startsWith('/generations/') && !carriesServiceCode(response.body))
			throw afterTries(missingRouteError(ctx.getNode(), req, id, response.body));
		throw afterTries(apiError(ctx.getNode(), statusCode, response.body, id, req.itemIndex));
	}
}
