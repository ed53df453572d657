// Shape checks for credential values. Pure functions: they run before any request,
// so a typo costs nothing and the message can say exactly what is expected.
// They never echo the value itself back: it is a secret.

export const API_KEY_PATTERN = /^sk_[0-9a-fA-F]{40}$/;
export const ANON_ID_PATTERN = /^[A-Za-z0-9._-]{8,80}$/;

export function describeApiKeyProblem(key: unknown): string | undefined {
	if (typeof key !== 'string' || key.trim() === '') {
		return (
			'The API key is empty. Paste the key from your account settings: it looks like sk_ followed by 40 hex ' +
			'characters (0-9, a-f).'
		);
	}
	if (!API_KEY_PATTERN.test(key.trim())) {
		return (
			`The API key does not have the expected shape: sk_ followed by exactly 40 hex characters (0-9, a-f), 43 ` +
			`characters in all. The value entered has ${key.trim().length} characters. Copy the key again from your account ` +
			`settings.`
		);
	}
	return undefined;
}

/**
 * The anonymous ID of a saved credential. Earlier builds saved it as "anonymousId"; such a credential keeps working
 * (the credential lists the old name as a hidden field, so n8n keeps its value when it reads the credential).
 */
export function readAnonymousId(data: Record<string, unknown>): unknown {
	const current = data.secretAnonymousId;
	return typeof current === 'string' && current.trim() !== '' ? current : data.anonymousId;
}

export function describeAnonymousIdProblem(id: unknown): string | undefined {
	if (typeof id !== 'string' || id.trim() === '') {
		return 'The anonymous ID is empty. Choose any ID of 8 to 80 characters using letters, digits, ".", "_" or "-".';
	}
	if (!ANON_ID_PATTERN.test(id.trim())) {
		return (
			`The anonymous ID must be 8 to 80 characters long and use only letters, digits, ".", "_" or "-". The ` +
			`value entered has ${id.trim().length} ` +
			`characters${/[^A-Za-z0-9._-]/.test(id.trim()) ? ' and contains other characters' : ''}.`
		);
	}
	return undefined;
}

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Shorter keys are refused: 16 bytes is the least a real endpoint secret has. */
export const MIN_WEBHOOK_KEY_BYTES = 16;
const BASE64_TEXT = /^[A-Za-z0-9+/]+={0,2}$/;

export type WebhookSecretProblem = 'blank' | 'prefixOnly' | 'notBase64' | 'tooShort';

/**
 * The HMAC key of a signing secret ("whsec_" + base64; the bare base64 form is read too, as the
 * standardwebhooks library does), or why it has none. Lenient decoding would turn " ", "whsec_" or
 * "whsec_!!" into an empty key that anyone can sign with, so the base64 must survive a round trip.
 */
export function readWebhookSecret(secret: unknown): { key: Buffer } | { problem: WebhookSecretProblem } {
	const value = typeof secret === 'string' ? secret.trim() : '';
	if (!value) return { problem: 'blank' };
	const text = value.startsWith(WEBHOOK_SECRET_PREFIX) ? value.slice(WEBHOOK_SECRET_PREFIX.length) : value;
	if (!text) return { problem: 'prefixOnly' };
	if (!BASE64_TEXT.test(text)) return { problem: 'notBase64' };
	const key = Buffer.from(text, 'base64');
	const padded = text.includes('=') ? text : text + '='.repeat((4 - (text.length % 4)) % 4);
	if (key.toString('base64') !== padded) return { problem: 'notBase64' };
	if (key.length < MIN_WEBHOOK_KEY_BYTES) return { problem: 'tooShort' };
	return { key };
}

/** True when the value is missing or only whitespace: an optional secret left like that counts as absent. */
export function isBlankSecret(secret: unknown): boolean {
	return typeof secret !== 'string' || secret.trim() === '';
}

export function describeWebhookSecretProblem(secret: unknown, field = 'Signing Secret'): string | undefined {
	const read = readWebhookSecret(secret);
	if ('key' in read) return undefined;
	const copy = 'Copy the whole secret again from your account settings.';
	switch (read.problem) {
		case 'blank':
			return (
				`The ${field} is empty. Copy the endpoint's signing secret from your account settings: ` +
				'it starts with whsec_ followed by base64 text.'
			);
		case 'prefixOnly':
			return `The ${field} holds only the prefix whsec_ and no key. ${copy}`;
		case 'notBase64':
			return (
				`The ${field} does not have the expected shape: whsec_ followed by base64 text (letters, digits, ` +
				`"+", "/" and up to two "=" at the end), with nothing else inside. ${copy}`
			);
		default:
			return (
				`The ${field} is too short: the part after whsec_ must decode to at least ${MIN_WEBHOOK_KEY_BYTES} bytes. ` +
				copy
			);
	}
}

/** The first problem of a signing-secret credential: a blank previous secret is absent, any other must be usable. */
export function describeWebhookCredentialProblem(data: {
	secret?: unknown;
	previousSecret?: unknown;
}): string | undefined {
	const current = describeWebhookSecretProblem(data.secret, 'Signing Secret');
	return current ?? describePreviousSecretProblem(data.previousSecret);
}

/** A blank Previous Signing Secret is absent: no problem. Anything else must hold a usable key. */
export function describePreviousSecretProblem(previous: unknown): string | undefined {
	return isBlankSecret(previous) ? undefined : describeWebhookSecretProblem(previous, 'Previous Signing Secret');
}

export function normaliseBaseUrl(baseUrl: unknown): string {
	const value = typeof baseUrl === 'string' ? baseUrl.trim() : '';
	return value.replace(/\/+$/, '');
}

/** This computer: 127.0.0.0/8, localhost and [::1]. Only there may the Base URL use plain http. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOST.test(hostname.replace(/\.$/, ''));
}

export function describeBaseUrlProblem(baseUrl: unknown): string | undefined {
	const value = normaliseBaseUrl(baseUrl);
	if (!value) return "The Base URL is empty. Enter the API's version 1 root, for example https://api.example.com/v1.";
	let url: URL | undefined;
	try {
		url = /^https?:\/\/[^\s/]+/i.test(value) ? new URL(value) : undefined;
	} catch {
		url = undefined;
	}
	if (!url) {
		return (
			`The Base URL must start with https://, for example https://api.example.com/v1 (http:// only for a test ` +
			`service on this computer).`
		);
	}
	// A typo here would send the API key or anonymous ID unencrypted across the network, so http is refused
	// before any request unless the service runs on this computer.
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		return (
			`The Base URL starts with http://, which would send your API key or anonymous ID unencrypted over the ` +
			`network to ${url.hostname}. Use https:// (for example https://api.example.com/v1). Plain http:// is ` +
			`accepted only for a test service on this computer (localhost, 127.0.0.1 or [::1]).`
		);
	}
	return undefined;
}
