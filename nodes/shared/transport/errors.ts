// Every error of the Media Generation API, worded once from the spec's error table, secrets redacted, and what a
// failure means for trying again. Callers ask the classifiers at the end, never an error's code itself.
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Identity } from './identity';

/**
 * The one wording of the claim that nothing was charged, in every message of both nodes; the field
 * `nothingCharged` says the same to a workflow. Worded here, the lowest folder, so the service's answers and the
 * node's own say it alike.
 */
export const NOTHING_CHARGED = 'nothing was charged';
/** The same words opening a sentence. */
export const NOTHING_CHARGED_OPENING = `N${NOTHING_CHARGED.slice(1)}`;

/** 'wait': sent again after Retry-After (or, for busy, a free slot); 'once': sent again at once; 'never'. */
type Retryable = 'never' | 'once' | 'wait';

/** The spec's error codes: what happened, what to do next, and what may be sent again (absent: never). */
export const ERROR_ADVICE: Record<string, { message: string; action: string; retryable?: Retryable }> = {
	invalid: {
		message: 'The service refused the request because some parameters are not valid',
		action: `Fix the fields listed below and run the node again. ${NOTHING_CHARGED_OPENING}.`,
	},
	rejected: {
		message: 'Content moderation refused this prompt or reference image',
		action: `Rewrite the prompt (or use another reference image) and try again. ${NOTHING_CHARGED_OPENING}.`,
	},
	unauthorized: {
		message: 'The request carried no identity',
		action: 'Select a Media Generation credential (API key, or anonymous ID for the free tier) on this node.',
	},
	invalid_api_key: {
		message: 'The API key was not accepted: it is invalid or has been revoked',
		action: 'Check the key in the Media Generation API credential, or create a new one in your account settings.',
	},
	unknown_anon_id: {
		message: 'The service does not recognise this anonymous ID',
		action:
			'Choose a new anonymous ID in the credential (8 to 80 letters, digits, ".", "_" or "-"), or use an API key.',
	},
	credits: {
		message: 'Not enough credits on the account for this run',
		action:
			'Top up your credits in the account settings, or choose a cheaper model or smaller options. ' +
			`${NOTHING_CHARGED_OPENING}.`,
	},
	allowance: {
		message: 'The free wallet of this anonymous ID is used up',
		action: 'Use the Media Generation API credential with an API key to keep generating.',
	},
	needs_api_key: {
		message: 'The free tier does not cover this model',
		action: 'Use the Media Generation API credential (API key), or pick the free house image engine.',
	},
	trial_closed: {
		message: 'The free tier is switched off for now',
		action: 'Use the Media Generation API credential with an API key.',
	},
	not_found: {
		message: 'No such record, or it belongs to another account',
		action: 'Check the run ID and that this node uses the same credential that started the run.',
	},
	busy: {
		message: 'Too many runs are already in progress for this account (free 1, paid 3)',
		action: 'Wait for a run to finish and try again; the node waits and retries on its own during a batch.',
		retryable: 'wait',
	},
	too_large: {
		message: 'The file is too large',
		action: 'Shrink the file: images up to 10 MB, audio and video up to 50 MB.',
	},
	anon_ip_daily: {
		message: 'This address has already opened its free wallets for today (3 a day)',
		action: 'Use the Media Generation API credential with an API key, or try again tomorrow.',
	},
	rate_limited: {
		message: 'Too many requests in a short time',
		action: 'Wait a little and run again, or send fewer requests at once.',
		retryable: 'wait',
	},
	limit: {
		message: 'A limit of the service was reached',
		action: 'Wait a little and try again, or reduce the number of items or the size of the request.',
	},
	provider: {
		message: 'The upstream model failed; the credits were refunded',
		action: 'Run the node again: this attempt was refunded, so a new run is not a second charge.',
		retryable: 'once',
	},
	storage_unavailable: {
		message: 'The service could not store the file right now',
		action: 'Try again in a few minutes.',
		retryable: 'once',
	},
	moderation_unavailable: {
		message: `Content moderation is down, so the service could not accept the run; ${NOTHING_CHARGED}`,
		action: 'Try again later.',
		retryable: 'once',
	},
	paused: {
		message: `Generation is paused by the operator; ${NOTHING_CHARGED}`,
		action: 'Try again later.',
		retryable: 'once',
	},
	server_error: {
		message: `The service had an unexpected error; ${NOTHING_CHARGED}`,
		action: 'Run the node again.',
		retryable: 'once',
	},
};

const STATUS_FALLBACK: Record<number, { code: string; text: string }> = {
	400: { code: 'invalid', text: 'The service refused the request as not valid' },
	401: { code: 'unauthorized', text: 'The service did not accept the credential' },
	402: { code: 'credits', text: 'The service asked for payment (not enough credits)' },
	403: { code: 'needs_api_key', text: 'The service refused access to this resource' },
	404: { code: 'not_found', text: 'The service found no such record' },
	409: { code: 'busy', text: 'The service reported a conflict (too many runs in progress)' },
	413: { code: 'too_large', text: 'The service refused the file as too large' },
	429: { code: 'rate_limited', text: 'The service is rate limiting requests' },
};

const lines = (parts: string[]) => parts.filter(Boolean).join('\n');

/** Turns any error answer (known code, unknown code, or no JSON at all) into words for a person. */
export function describeApiError(
	httpCode: number,
	body: unknown,
): { code: string; message: string; description: string; issues: string[]; retryable: Retryable } {
	const parsed = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
	const code = typeof parsed.error === 'string' ? parsed.error : '';
	const serviceMessage = typeof parsed.message === 'string' ? parsed.message : '';
	const issues = Array.isArray(parsed.issues) ? parsed.issues.map((i) => String(i)) : [];
	const advice = ERROR_ADVICE[code];
	if (advice) {
		const description = [
			advice.action,
			issues.length ? `Problems: ${issues.map((i) => `• ${i}`).join(' ')}` : '',
			serviceMessage && serviceMessage !== advice.message ? `Service says: ${serviceMessage}` : '',
			`(HTTP ${httpCode}, error code "${code}")`,
		];
		const message = issues.length ? `${advice.message}: ${issues.join('; ')}` : advice.message;
		return { code, message, description: lines(description), issues, retryable: advice.retryable ?? 'never' };
	}
	const fallback = STATUS_FALLBACK[httpCode];
	const isServerSide = httpCode >= 500;
	const head = code
		? `The service answered with an error this node does not know ("${code}", HTTP ${httpCode})`
		: fallback
			? `${fallback.text} (HTTP ${httpCode})`
			: `The service answered with HTTP ${httpCode}${isServerSide ? ' (a server-side problem)' : ''}`;
	const description = [
		isServerSide
			? 'Try again in a few minutes. If it keeps happening, check the Base URL in the credential.'
			: "Check the node's fields and the Base URL in the credential, then run again.",
		issues.length ? `Problems: ${issues.join('; ')}` : '',
		`(HTTP ${httpCode})`,
	];
	return {
		code: code || (fallback?.code ?? (isServerSide ? 'server_error' : 'unknown')),
		message: serviceMessage ? `${head}: ${serviceMessage}` : head,
		description: lines(description),
		issues,
		retryable: isServerSide ? 'once' : (ERROR_ADVICE[fallback?.code ?? '']?.retryable ?? 'never'),
	};
}

/** Removes anything that looks like one of our secrets from a string before it is shown or logged. */
export function redactSecrets(text: string, extra: string[]): string {
	let out = text.replace(/sk_[0-9a-fA-F]{8,}/g, 'sk_***').replace(/whsec_[A-Za-z0-9+/=]{4,}/g, 'whsec_***');
	for (const value of extra) {
		if (value && value.length >= 4) out = out.split(value).join('***');
	}
	return out;
}

export class MediaGenApiError extends NodeApiError {
	/** The service's error code ("busy", "credits", …), or this node's "unexpected_answer" and "no_answer". */
	code = '';
	/** An earlier try of the same request was handled but its answer lost: it may have done its work (a charge). */
	answerLostBefore = false;
}

/** A request as its errors name it. */
type Route = { method: string; path: string; itemIndex?: number };

/** The error for an HTTP answer that is not a success, worded from the table unless `wording` says otherwise. */
export function apiError(
	node: INode,
	statusCode: number,
	body: unknown,
	{ secrets }: Identity,
	itemIndex?: number,
	wording: { message?: string; description?: string; context?: IDataObject } = {},
): MediaGenApiError {
	const { code, issues, message, description } = describeApiError(statusCode, body);
	const safeBody = JSON.parse(redactSecrets(JSON.stringify(body ?? {}), secrets)) as JsonObject;
	const error = new MediaGenApiError(node, safeBody, {
		message: redactSecrets(wording.message ?? message, secrets),
		description: redactSecrets(wording.description ?? description, secrets),
		httpCode: String(statusCode),
		itemIndex,
	});
	error.code = code;
	Object.assign(error.context, { errorCode: code, issues, ...wording.context });
	return error;
}

/** "GET /generations/{id}": the route, without the run id. */
function describeRoute(req: Route): string {
	return `${req.method} ${req.path.replace(/^\/generations\/[^/?]+/, '/generations/{id}')}`;
}

function baseUrlHint(baseUrl: string): string {
	const v1 = /\/v1$/.test(baseUrl) ? '' : " It does not end in /v1; the API's version 1 root usually does.";
	return `Check the Base URL in the credential (now ${baseUrl}): it must be the API's version 1 root.${v1}`;
}

/** A request that got no answer (refused, dropped, timed out), in n8n's own words: it may have been processed. */
export function noAnswerError(node: INode, req: Route, id: Identity, cause: unknown): MediaGenApiError {
	const reason = redactSecrets(String((cause as Error)?.message ?? cause), id.secrets);
	const error = new MediaGenApiError(node, {} as JsonObject, {
		message: `No answer from the Media Generation API to ${describeRoute(req)}: ${reason}`,
		description: `${baseUrlHint(id.baseUrl)} Also check that the service is reachable from n8n.`,
		itemIndex: req.itemIndex,
	});
	return Object.assign(error, { code: 'no_answer' });
}

/** A 2xx answer whose shape is not what the node expects (often a Base URL pointing at another service). */
export function unexpectedAnswerError(
	node: INode,
	req: Route,
	id: Identity,
	statusCode: number,
	problem: string,
	body: unknown,
): MediaGenApiError {
	return apiError(node, statusCode, { error: 'unexpected_answer' }, id, req.itemIndex, {
		message: `The service's answer to ${describeRoute(req)} is not what this node expects: ${problem}`,
		description: `${baseUrlHint(id.baseUrl)} If it is right, the service may be having trouble: try again later.`,
		context: { answer: redactSecrets(JSON.stringify(body ?? null), id.secrets).slice(0, 300) },
	});
}

/** A 404 on a route that always exists on the v1 root: the Base URL points somewhere else. */
export function missingRouteError(node: INode, req: Route, id: Identity, body: unknown): MediaGenApiError {
	return apiError(node, 404, body, id, req.itemIndex, {
		message: `The service has no ${describeRoute(req)} at ${id.baseUrl}`,
		description: baseUrlHint(id.baseUrl),
	});
}

// What a failure means for trying again: one name per meaning, each saying exactly what it counts.

/** No answer, or an answer this node cannot read: the request may or may not have been processed. */
export function isLostAnswer(error: unknown): boolean {
	return error instanceof MediaGenApiError && (error.code === 'no_answer' || error.code === 'unexpected_answer');
}

/** 409 busy: every run slot of the account is taken; the submission was refused and nothing was charged. */
export function isBusySubmission(error: unknown): boolean {
	return error instanceof MediaGenApiError && error.code === 'busy';
}

/**
 * 402: not enough credits (or free allowance) right now; nothing was charged. The one refusal that depends on the
 * moment: a refund may free the credits, so the same request can succeed later, in this process or another.
 */
export function isOutOfCredits(error: unknown): boolean {
	return error instanceof MediaGenApiError && Number(error.httpCode) === 402;
}

/** A lost answer, 429 or a 5xx: says nothing about the request itself, and may pass (busy is not counted). */
export function isTransientFailure(error: unknown): boolean {
	if (isLostAnswer(error)) return true;
	const status = error instanceof MediaGenApiError ? Number(error.httpCode) : 0;
	return status === 429 || status >= 500;
}

/** A failed read of a run that the next poll may well get: a transient failure, or 404 (not visible yet). */
export function isRetryableRead(error: unknown): boolean {
	return isTransientFailure(error) || (error instanceof MediaGenApiError && Number(error.httpCode) === 404);
}
