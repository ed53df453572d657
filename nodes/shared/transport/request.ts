// One API request: paced by the rate headers of earlier answers, sent, waited out (Retry-After, bounded) and sent
// again where a request key makes that safe, until it is answered or fails with a MediaGenApiError in plain words.
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import {
	apiError,
	describeApiError,
	ERROR_ADVICE,
	type MediaGenApiError,
	missingRouteError,
	noAnswerError,
	unexpectedAnswerError,
} from './errors';
import { identityOf, type ApiContext } from './identity';

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** Per-attempt time limit in ms. */
	timeoutMs?: number;
	/** Retries after a dropped connection, a time-out or a 5xx. Only safe for reads, or writes with a requestKey. */
	retryTransient?: number;
	/** Epoch ms after which no wait starts: Retry-After and retry pauses that would pass it end the request. */
	deadline?: number;
	/** Checks a 2xx answer's shape; returns what is missing, or undefined when the answer is usable. */
	expect?: (body: unknown) => string | undefined;
	itemIndex?: number;
}

export interface ApiResponse<T> {
	body: T;
	/** An earlier try of this request got no answer (it may have been handled) before this answer came. */
	answerLostBefore: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** The longest one Retry-After is waited out; past it the node gives up with a clear error. */
const MAX_RETRY_AFTER_MS = 120_000;
const MAX_429_WAITS = 5;

/** Waits `ms`, or rejects as soon as `signal` aborts (n8n 1.x's sleep ignores a signal, so the abort is raced). */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('The execution was cancelled'));
	if (signal.aborted) throw reason();
	let onAbort = () => undefined as void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(reason());
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

type RateBucket = 'submit' | 'read' | 'upload';

// Pacing only, per process and identity: each process paces from the headers of its own answers (other processes'
// requests show in the next header's count) and a 429 is still waited out below, so nothing depends on this map.
const budgets = new Map<string, { remaining?: number; resetAt?: number; inFlight: number }>();

/** The spec's windows are a minute long: a reset misread (or a clock far off) costs at most one such wait. */
export const MAX_RESET_WAIT_MS = 65_000;

/**
 * When the window resets (epoch ms) from X-RateLimit-Reset, whose unit the spec does not give: seconds from now, Unix
 * seconds or Unix milliseconds, told apart by size; never later than MAX_RESET_WAIT_MS from now.
 */
export function parseReset(value: string | undefined, now = Date.now()): number | undefined {
	const n = value ? Number(value) : NaN;
	if (!Number.isFinite(n)) return undefined;
	const at = n > 1e12 ? n : n > 1e9 ? n * 1000 : now + n * 1000;
	return Math.min(Math.max(at, now), now + MAX_RESET_WAIT_MS);
}

/**
 * Waits while the known budget of this bucket is spent, then counts one request in flight until the function returned
 * releases it with the answer's headers (a header cannot know of requests still in flight: they count against it).
 */
export async function acquireRateBudget(
	fingerprint: string,
	bucket: RateBucket,
	signal?: AbortSignal,
	deadline?: number,
): Promise<(headers?: Record<string, string>) => void> {
	const key = `${fingerprint}|${bucket}`;
	const b = budgets.get(key) ?? { inFlight: 0 };
	budgets.set(key, b);
	for (;;) {
		const now = Date.now();
		if (b.resetAt !== undefined && now >= b.resetAt) b.remaining = b.resetAt = undefined;
		if (b.remaining === undefined || b.remaining > 0) break;
		// Past the caller's deadline the request goes out anyway; a 429 then ends it without a wait.
		if (deadline !== undefined && now >= deadline) break;
		const until = Math.min((b.resetAt ?? now) + 25, deadline ?? Infinity);
		await sleepUnlessAborted(Math.min(Math.max(until - now, 1), MAX_RESET_WAIT_MS), signal);
	}
	if (b.remaining !== undefined) b.remaining--;
	b.inFlight++;
	let released = false;
	return (headers) => {
		if (released) return;
		released = true;
		b.inFlight--;
		const reported = Number(headers?.['x-ratelimit-remaining']);
		const now = Date.now();
		const resetAt = parseReset(headers?.['x-ratelimit-reset'], now);
		if (!Number.isFinite(reported) || resetAt === undefined) return;
		const estimate = Math.max(0, reported - b.inFlight);
		const sameWindow =
			b.resetAt !== undefined && b.remaining !== undefined && Math.abs(b.resetAt - resetAt) < 1500 && b.resetAt > now;
		b.remaining = sameWindow ? Math.min(b.remaining!, estimate) : estimate;
		b.resetAt = sameWindow ? Math.max(b.resetAt!, resetAt) : resetAt;
	};
}

/** A dropped, refused or timed-out connection: the loop sends reads and keyed writes again. */
function isTransportFailure(error: unknown): boolean {
	const e = error as { code?: string; cause?: { code?: string }; message?: string };
	const code = e?.cause?.code ?? e?.code ?? '';
	const codes = /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|ECONNABORTED|EPIPE|ERR_BAD_RESPONSE|EAI_AGAIN|ESOCKETTIMEDOUT)$/;
	if (codes.test(code)) return true;
	return /socket hang up|timeout|ECONNRESET|ECONNREFUSED|aborted|network/i.test(String(e?.message ?? ''));
}

function bucketOf(req: ApiRequest): RateBucket {
	if (req.method === 'POST' && req.path === '/generations') return 'submit';
	return req.method === 'POST' && req.path === '/uploads' ? 'upload' : 'read';
}

/** Seconds from a Retry-After header (seconds or an HTTP date); undefined when absent. */
function parseRetryAfter(value: string | undefined): number | undefined {
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** What to do after a 429 the node stopped waiting out, saying truly how long it waited. */
function rateLimitAdvice(retryAfter: number, waits: number, waitedMs: number): string {
	const asked = `The service asked to wait ${Math.ceil(retryAfter)} s`;
	const waited = waits
		? `The node already waited ${waits} time${waits === 1 ? '' : 's'} (${Math.round(waitedMs / 1000)} s in all).`
		: 'The node did not wait.';
	const why =
		retryAfter * 1000 > MAX_RETRY_AFTER_MS
			? `, longer than this node waits at once (${Math.round(MAX_RETRY_AFTER_MS / 1000)} s).`
			: ", and waiting would pass this step's time limit or it kept asking.";
	return `${asked}${why} ${waited} Wait a few minutes and run again, or send fewer requests at once.`;
}

/** Sleeps unless that would pass the deadline; returns false (without sleeping) when it would. */
async function pause(ms: number, deadline: number | undefined, signal?: AbortSignal): Promise<boolean> {
	if (deadline !== undefined && Date.now() + ms > deadline) return false;
	await sleepUnlessAborted(ms, signal);
	return true;
}

export async function apiRequest<T = IDataObject>(ctx: ApiContext, req: ApiRequest): Promise<ApiResponse<T>> {
	const id = await identityOf(ctx);
	const signal = (ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	let transientLeft = req.retryTransient ?? 0;
	let waits429 = 0;
	let waitedMs = 0;
	let answerLost = false;
	const afterTries = (error: MediaGenApiError) => Object.assign(error, { answerLostBefore: answerLost });
	for (;;) {
		const release = await acquireRateBudget(id.fingerprint, bucketOf(req), signal, req.deadline);
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
			const send = ctx.helpers.httpRequestWithAuthentication;
			response = (await send.call(ctx, id.credentialType, options)) as typeof response;
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
		const headers: Record<string, string> = {};
		for (const [k, v] of Object.entries((response.headers ?? {}) as Record<string, unknown>))
			headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
		release(headers);
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) {
			const problem = req.expect?.(response.body);
			if (problem) throw afterTries(unexpectedAnswerError(ctx.getNode(), req, id, statusCode, problem, response.body));
			return { body: response.body as T, answerLostBefore: answerLost };
		}
		const { retryable, code } = describeApiError(statusCode, response.body);
		let wording = {};
		if (statusCode === 429) {
			const retryAfter = parseRetryAfter(headers['retry-after']) ?? 5;
			const mayWait = retryable === 'wait' && retryAfter * 1000 <= MAX_RETRY_AFTER_MS && waits429 < MAX_429_WAITS;
			if (mayWait && (await pause(Math.ceil(retryAfter * 1000), req.deadline, signal))) {
				waits429++;
				waitedMs += Math.ceil(retryAfter * 1000);
				continue;
			}
			const advice = retryable === 'wait' ? rateLimitAdvice(retryAfter, waits429, waitedMs) : undefined;
			wording = { context: { retryAfterSeconds: retryAfter }, description: advice };
		}
		// 'once' (provider, server_error, 503s, unknown 5xx): sent again with the same requestKey, as the
		// spec asks, where the caller says it is safe; 503s are "retry later", uncharged, so the pause is longer.
		const again = retryable === 'once' && transientLeft > 0 && statusCode !== 429;
		if (again && (await pause(statusCode === 503 ? 2000 : 1000, req.deadline, signal))) {
			transientLeft--;
			continue;
		}
		// A 404 on a route that always exists (all but a run's own) means the Base URL points somewhere else,
		// unless it carries one of the service's own codes (other than not_found), which then says what happened.
		const serviceCode = code !== 'not_found' && Object.hasOwn(ERROR_ADVICE, code);
		if (statusCode === 404 && !req.path.startsWith('/generations/') && !serviceCode)
			throw afterTries(missingRouteError(ctx.getNode(), req, id, response.body));
		throw afterTries(apiError(ctx.getNode(), statusCode, response.body, id, req.itemIndex, wording));
	}
}
