// Shape checks of the API credentials' values: the API key, the anonymous ID and the Base URL. Pure functions:
// the credentials' authenticate() and identity.ts run them before any request, so a typo costs nothing and the
// message can say exactly what is expected. They never echo the value itself back: it is a secret.

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
