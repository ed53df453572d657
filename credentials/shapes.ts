// Shape checks for credential values. Pure functions: they run before any request,
// so a typo costs nothing and the message can say exactly what is expected.
// They never echo the value itself back: it is a secret.

export const API_KEY_PATTERN = /^sk_[0-9a-fA-F]{40}$/;
export const ANON_ID_PATTERN = /^[A-Za-z0-9._-]{8,80}$/;
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

export function describeApiKeyProblem(key: unknown): string | undefined {
	if (typeof key !== 'string' || key.trim() === '') {
		return 'The API key is empty. Paste the key from your account settings: it looks like sk_ followed by 40 hex characters (0-9, a-f).';
	}
	if (!API_KEY_PATTERN.test(key.trim())) {
		return `The API key does not have the expected shape: sk_ followed by exactly 40 hex characters (0-9, a-f), 43 characters in all. The value entered has ${key.trim().length} characters. Copy the key again from your account settings.`;
	}
	return undefined;
}

export function describeAnonymousIdProblem(id: unknown): string | undefined {
	if (typeof id !== 'string' || id.trim() === '') {
		return 'The anonymous ID is empty. Choose any ID of 8 to 80 characters using letters, digits, ".", "_" or "-".';
	}
	if (!ANON_ID_PATTERN.test(id.trim())) {
		return `The anonymous ID must be 8 to 80 characters long and use only letters, digits, ".", "_" or "-". The value entered has ${id.trim().length} characters${/[^A-Za-z0-9._-]/.test(id.trim()) ? ' and contains other characters' : ''}.`;
	}
	return undefined;
}

export function describeWebhookSecretProblem(secret: unknown, field = 'Signing Secret'): string | undefined {
	if (typeof secret !== 'string' || secret.trim() === '') {
		return `The ${field} is empty. Copy the endpoint's signing secret from your account settings: it starts with whsec_ followed by base64 text.`;
	}
	const value = secret.trim();
	if (!WEBHOOK_SECRET_PATTERN.test(value) || value.length <= 'whsec_'.length) {
		return `The ${field} does not have the expected shape: whsec_ followed by base64 text (letters, digits, "+", "/" and up to two "=" at the end).`;
	}
	const key = Buffer.from(value.slice('whsec_'.length), 'base64');
	if (key.length < 16) {
		return `The ${field} is too short: the part after whsec_ must decode to at least 16 bytes. Copy the whole secret from your account settings.`;
	}
	return undefined;
}

export function normaliseBaseUrl(baseUrl: unknown): string {
	const value = typeof baseUrl === 'string' ? baseUrl.trim() : '';
	return value.replace(/\/+$/, '');
}

export function describeBaseUrlProblem(baseUrl: unknown): string | undefined {
	const value = normaliseBaseUrl(baseUrl);
	if (!value) return 'The Base URL is empty. Enter the API\'s version 1 root, for example https://api.example.com/v1.';
	if (!/^https?:\/\/[^\s/]+/i.test(value)) {
		return `The Base URL must start with https:// (or http:// for a local sandbox), for example https://api.example.com/v1.`;
	}
	return undefined;
}
