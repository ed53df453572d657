/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What each injected fault kind does to a /v1 request: cut it, delay it, answer for it, or spoil its answer.
import http from 'node:http';
import { Readable } from 'node:stream';

import { ApiFailure } from '../apiFailure';
import type { PickedFault } from '../faults';
import type { Exchange } from './context';
import { rateHeaders } from './rateBudget';
import { readBody, sendJson } from './respond';

/** Handles a /v1 request normally; `providerFailure` makes a submission fail upstream after its checks. */
export type ApiRequestHandler = (exchange: Exchange, providerFailure: boolean) => Promise<number>;

/** The route name fault rules use: "POST /generations", "GET /generations/:id", … */
export function faultRouteOf(method: string, pathname: string): string {
	return `${method} ${pathname.replace(/^\/v1/, '').replace(/\/generations\/[^/]+$/, '/generations/:id')}`;
}

/**
 * The headers of an injected 429 in the rule's style: Retry-After in seconds, Retry-After as an HTTP date (whole
 * seconds, rounded up so the wait is never shorter), or only the X-RateLimit-* headers of a spent window.
 */
export function injected429Headers(fault: PickedFault, now = Date.now(), strict = false): Record<string, string> {
	const resetAt = now + fault.retryAfterSeconds * 1000;
	switch (fault.rateLimitStyle ?? 'retry-after-seconds') {
		case 'retry-after-date':
			return { 'retry-after': new Date(Math.ceil(resetAt / 1000) * 1000).toUTCString() };
		case 'reset-only':
			return rateHeaders({ allowed: false, limit: 20, remaining: 0, resetAt }, now, strict);
		default:
			return { 'retry-after': String(fault.retryAfterSeconds) };
	}
}

/** Handles the request for its side effects only, into an answer nobody reads; returns the status it had. */
function handleUnseen(exchange: Exchange, handle: ApiRequestHandler): Promise<number> {
	const sink = new http.ServerResponse(exchange.req);
	return handle({ ...exchange, res: sink }, false).catch((e) => (e instanceof ApiFailure ? e.status : 500));
}

const ANSWERED_UNHANDLED = new Set(['500', '503', '404', '409', '429']);

/** How the sandbox applies faults: its mode, its clock scale, and where requests handled late are tracked. */
export interface FaultSetting {
	strict: boolean;
	timeScale: number;
	/** Requests cut unanswered and not handled yet ("late"): a test waits for them before it reads the ledger. */
	pendingLate: Set<Promise<void>>;
}

/** A request already read whole, as a handler reads it: its headers and its body again. */
function replayOf(req: http.IncomingMessage, body: Buffer): http.IncomingMessage {
	const { headers, method, url, httpVersion, httpVersionMajor, httpVersionMinor } = req;
	const replay = Readable.from([body]);
	return Object.assign(replay, {
		headers,
		method,
		url,
		httpVersion,
		httpVersionMajor,
		httpVersionMinor,
		socket: {},
	}) as never;
}

/**
 * "late": the request is read whole, its connection cut with no answer, and `lateMs` (scaled) later it is handled as
 * if it had just arrived: a run is made and charged after the client gave up on it.
 */
async function handleLate(exchange: Exchange, fault: PickedFault, handle: ApiRequestHandler, setting: FaultSetting) {
	const chunks: Buffer[] = [];
	for await (const chunk of exchange.req) chunks.push(chunk as Buffer);
	exchange.req.socket.destroy();
	try {
		exchange.entry.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
	} catch {
		// not JSON: the handler refuses it when it is handled
	}
	const delayMs = (fault.lateMs ?? 0) * setting.timeScale;
	const handled = new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref())
		.then(() => handleUnseen({ ...exchange, req: replayOf(exchange.req, Buffer.concat(chunks)) }, handle))
		.then((status) => {
			exchange.entry.status = status;
		})
		.finally(() => setting.pendingLate.delete(handled));
	setting.pendingLate.add(handled);
}

/** The connection cut: strict mode takes the least convenient reading of a cut submission, that it took effect late. */
function isCutHandledLate(exchange: Exchange, strict: boolean): boolean {
	return strict && exchange.method === 'POST' && exchange.url.pathname === '/v1/generations';
}

/** Applies the fault, handling the request too where the fault kind says it is handled. */
export async function handleWithFault(
	exchange: Exchange,
	picked: PickedFault,
	handle: ApiRequestHandler,
	setting: FaultSetting,
): Promise<void> {
	const { entry, req, url } = exchange;
	const { strict } = setting;
	const cutLate = picked.kind === 'drop' && isCutHandledLate(exchange, strict);
	const fault: PickedFault = cutLate ? { ...picked, kind: 'late' } : picked;
	entry.fault = fault.kind;
	// A submission answered for (an injected 5xx, 404, 409 or 429) is read first, so the log names its request key.
	if (ANSWERED_UNHANDLED.has(fault.kind) && exchange.method === 'POST' && url.pathname === '/v1/generations')
		entry.body = await readBody(req).catch(() => undefined);
	let providerFailure = false;
	switch (fault.kind) {
		case 'drop':
			req.socket.destroy();
			return;
		case 'late':
			return handleLate(exchange, fault, handle, setting);
		case 'slow':
			await new Promise((resolve) => setTimeout(resolve, fault.slowMs));
			break;
		case '500':
			throw new ApiFailure(500, 'server_error', 'Unexpected server error (injected)');
		case '503':
			if (url.pathname === '/v1/uploads') {
				throw new ApiFailure(503, 'storage_unavailable', 'Storage is unavailable (injected)');
			}
			throw new ApiFailure(503, 'moderation_unavailable', 'Moderation is unavailable (injected)');
		case '502':
			// A submission passes its checks and is charged, then refunded (the spec's provider failure).
			if (exchange.method !== 'POST' || url.pathname !== '/v1/generations') {
				throw new ApiFailure(502, 'provider', 'Upstream failure (injected)');
			}
			providerFailure = true;
			break;
		case '404':
			throw new ApiFailure(404, 'not_found', 'No such record (injected)');
		case '409':
			throw new ApiFailure(409, 'busy', 'Too many concurrent runs (injected)');
		case '429':
			throw new ApiFailure(
				429,
				'rate_limited',
				'Too many requests (injected)',
				undefined,
				injected429Headers(fault, Date.now(), strict),
			);
		case 'malformed': {
			// Handled, then answered with its status and an empty object (a broken proxy).
			const status = await handleUnseen(exchange, handle);
			entry.status = status;
			sendJson(exchange.res, status, {});
			return;
		}
		case 'drop_after':
			// Handled, then the answer is lost: the client must retry with the same requestKey.
			entry.status = await handleUnseen(exchange, handle);
			req.socket.destroy();
			return;
	}
	entry.status = await handle(exchange, providerFailure);
}
