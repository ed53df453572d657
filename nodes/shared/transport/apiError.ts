// The node's errors for what the service answered, or did not: each message and description is written once,
// here, with secrets redacted. The spec's error table itself is in errorTable.ts.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { describeApiError, redactSecrets } from './errorTable';
import type { Identity } from './identity';

/** A request as its errors name it. */
export interface RouteOf {
	method: string;
	path: string;
	itemIndex?: number;
}

/** An error from the Media Generation API, or from trying to reach it. */
export class MediaGenApiError extends NodeApiError {
	/** The service's error code ("busy", "credits", …), or this node's "unexpected_answer" and "no_answer". */
	code = '';

	/** An earlier try of the same request was handled but its answer lost: it may have done its work (a charge). */
	answerLostBefore = false;
}

/** What a caller words differently from the error table (the rest comes from the table). */
interface Wording {
	message?: string;
	description?: string;
	code?: string;
	context?: IDataObject;
}

/** The error for an HTTP answer that is not a success, worded from the spec's error table unless told otherwise. */
export function apiError(
	node: INode,
	statusCode: number,
	body: unknown,
	identity: Identity | undefined,
	itemIndex?: number,
	wording: Wording = {},
): MediaGenApiError {
	const described = describeApiError(statusCode, body);
	const secrets = identity?.secrets ?? [];
	const safeBody = JSON.parse(redactSecrets(JSON.stringify(body ?? {}), secrets)) as JsonObject;
	const code = wording.code ?? described.code;
	const error = new MediaGenApiError(node, safeBody, {
		message: redactSecrets(wording.message ?? described.message, secrets),
		description: redactSecrets(wording.description ?? described.description, secrets),
		httpCode: String(statusCode),
		itemIndex,
	});
	error.code = code;
	Object.assign(error.context, { errorCode: code, issues: described.issues, ...wording.context });
	return error;
}

/** "GET /generations/{id}": the route, without the run id. */
export function describeRoute(req: RouteOf): string {
	return `${req.method} ${req.path.replace(/^\/generations\/[^/?]+/, '/generations/{id}')}`;
}

function baseUrlHint(baseUrl: string): string {
	const v1 = /\/v1$/.test(baseUrl) ? '' : " It does not end in /v1; the API's version 1 root usually does.";
	return `Check the Base URL in the credential (now ${baseUrl}): it must be the API's version 1 root.${v1}`;
}

/**
 * A request that got no answer (refused, dropped, timed out): it may or may not have been processed. The reason
 * is n8n's own wording of the network error (its HTTP helper has already replaced codes like ECONNRESET).
 */
export function noAnswerError(node: INode, req: RouteOf, id: Identity, cause: unknown): MediaGenApiError {
	const reason = redactSecrets(String((cause as Error)?.message ?? cause), id.secrets);
	const error = new MediaGenApiError(node, {} as JsonObject, {
		message: `No answer from the Media Generation API to ${describeRoute(req)}: ${reason}`,
		description: `${baseUrlHint(id.baseUrl)} Also check that the service is reachable from n8n.`,
		itemIndex: req.itemIndex,
	});
	error.code = 'no_answer';
	return error;
}

/** A 2xx answer whose shape is not what the node expects (often a Base URL pointing at another service). */
export function unexpectedAnswerError(
	node: INode,
	req: RouteOf,
	id: Identity,
	statusCode: number,
	problem: string,
	body: unknown,
): MediaGenApiError {
	return apiError(node, statusCode, { error: 'unexpected_answer' }, id, req.itemIndex, {
		message: `The service's answer to ${describeRoute(req)} is not what this node expects: ${problem}`,
		description: `${baseUrlHint(id.baseUrl)} If it is right, the service may be having trouble: try again later.`,
		code: 'unexpected_answer',
		context: { answer: redactSecrets(JSON.stringify(body ?? null), id.secrets).slice(0, 300) },
	});
}

/** A 404 on a route that always exists on the v1 root: the Base URL points somewhere else. */
export function missingRouteError(node: INode, req: RouteOf, id: Identity, body: unknown): MediaGenApiError {
	return apiError(node, 404, body, id, req.itemIndex, {
		message: `The service has no ${describeRoute(req)} at ${id.baseUrl}`,
		description: baseUrlHint(id.baseUrl),
	});
}

/** What to do after a 429 the node stopped waiting out, saying truly how long it waited. */
export function rateLimitAdvice(retryAfter: number, waits: number, waitedMs: number, maxWaitMs: number): string {
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
