// The spec's error table, as data: each stable `error` code becomes a plain-words
// message (what happened) and a description (what to do next). Pure module, unit-tested.

export interface ErrorAdvice {
	message: string;
	action: string;
	/**
	 * Whether the same request (same requestKey) may be sent again automatically: 'wait' after the
	 * service's Retry-After (the transport) or for a free slot (submission), 'once' at once, 'never'.
	 */
	retryable: 'never' | 'once' | 'wait';
}

export const ERROR_ADVICE: Record<string, ErrorAdvice> = {
	invalid: {
		message: 'The service refused the request because some parameters are not valid',
		action: 'Fix the fields listed below and run the node again. Nothing was charged.',
		retryable: 'never',
	},
	rejected: {
		message: 'Content moderation refused this prompt or reference image',
		action: 'Rewrite the prompt (or use another reference image) and try again. Refused requests are never charged.',
		retryable: 'never',
	},
	unauthorized: {
		message: 'The request carried no identity',
		action: 'Select a Media Generation credential (API key, or anonymous ID for the free tier) on this node.',
		retryable: 'never',
	},
	invalid_api_key: {
		message: 'The API key was not accepted: it is invalid or has been revoked',
		action: 'Check the key in the Media Generation API credential, or create a new one in your account settings.',
		retryable: 'never',
	},
	unknown_anon_id: {
		message: 'The service does not recognise this anonymous ID',
		action:
			'Choose a new anonymous ID in the credential (8 to 80 letters, digits, ".", "_" or "-"), or use an API key.',
		retryable: 'never',
	},
	credits: {
		message: 'Not enough credits on the account for this run',
		action:
			'Top up your credits in the account settings, or choose a cheaper model or smaller options. Nothing was charged.',
		retryable: 'never',
	},
	allowance: {
		message: 'The free wallet of this anonymous ID is used up',
		action: 'Use the Media Generation API credential with an API key to keep generating.',
		retryable: 'never',
	},
	needs_api_key: {
		message: 'The free tier does not cover this model',
		action: 'Use the Media Generation API credential (API key), or pick the free house image engine.',
		retryable: 'never',
	},
	trial_closed: {
		message: 'The free tier is switched off for now',
		action: 'Use the Media Generation API credential with an API key.',
		retryable: 'never',
	},
	not_found: {
		message: 'No such record, or it belongs to another account',
		action: 'Check the run ID and that this node uses the same credential that started the run.',
		retryable: 'never',
	},
	busy: {
		message: 'Too many runs are already in progress for this account (free 1, paid 3)',
		action: 'Wait for a run to finish and try again; the node waits and retries on its own during a batch.',
		retryable: 'wait',
	},
	too_large: {
		message: 'The file is too large',
		action: 'Shrink the file: images up to 10 MB, audio and video up to 50 MB.',
		retryable: 'never',
	},
	anon_ip_daily: {
		message: 'This address has already opened its free wallets for today (3 a day)',
		action: 'Use the Media Generation API credential with an API key, or try again tomorrow.',
		retryable: 'never',
	},
	rate_limited: {
		message: 'Too many requests in a short time',
		action: 'Wait a little and run again, or send fewer requests at once.',
		retryable: 'wait',
	},
	limit: {
		message: 'A limit of the service was reached',
		action: 'Wait a little and try again, or reduce the number of items or the size of the request.',
		retryable: 'never',
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
		message: 'Content moderation is down, so the service could not accept the run; nothing was charged',
		action: 'Try again later.',
		retryable: 'once',
	},
	paused: {
		message: 'Generation is paused by the operator; nothing was charged',
		action: 'Try again later.',
		retryable: 'once',
	},
	server_error: {
		message: 'The service had an unexpected error; nothing was charged',
		action: 'Run the node again: this attempt was not charged.',
		retryable: 'once',
	},
};

export interface ApiErrorBody {
	error?: unknown;
	message?: unknown;
	issues?: unknown;
}

export interface DescribedError {
	code: string;
	httpCode: number;
	message: string;
	description: string;
	issues: string[];
	retryable: ErrorAdvice['retryable'];
}

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

/** Turns any error answer (known code, unknown code, or no JSON at all) into words for a person. */
export function describeApiError(httpCode: number, body: unknown): DescribedError {
	const parsed = (body && typeof body === 'object' ? body : {}) as ApiErrorBody;
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
		]
			.filter(Boolean)
			.join('\n');
		return {
			code,
			httpCode,
			message: issues.length ? `${advice.message}: ${issues.join('; ')}` : advice.message,
			description,
			issues,
			retryable: advice.retryable,
		};
	}
	const fallback = STATUS_FALLBACK[httpCode];
	const isServerSide = httpCode >= 500;
	const head = code
		? `The service answered with an error this node does not know ("${code}", HTTP ${httpCode})`
		: fallback
			? `${fallback.text} (HTTP ${httpCode})`
			: `The service answered with HTTP ${httpCode}${isServerSide ? ' (a server-side problem)' : ''}`;
	return {
		code: code || (fallback?.code ?? (isServerSide ? 'server_error' : 'unknown')),
		httpCode,
		message: serviceMessage ? `${head}: ${serviceMessage}` : head,
		description: [
			isServerSide
				? 'Try again in a few minutes. If it keeps happening, check the Base URL in the credential.'
				: "Check the node's fields and the Base URL in the credential, then run again.",
			issues.length ? `Problems: ${issues.join('; ')}` : '',
			`(HTTP ${httpCode})`,
		]
			.filter(Boolean)
			.join('\n'),
		issues,
		retryable: isServerSide ? 'once' : httpCode === 429 || httpCode === 409 ? 'wait' : 'never',
	};
}

/** Removes anything that looks like one of our secrets from a string before it is shown or logged. */
export function redactSecrets(text: string, extra: string[] = []): string {
	let out = text.replace(/sk_[0-9a-fA-F]{8,}/g, 'sk_***').replace(/whsec_[A-Za-z0-9+/=]{4,}/g, 'whsec_***');
	for (const value of extra) {
		if (value && value.length >= 4) out = out.split(value).join('***');
	}
	return out;
}
