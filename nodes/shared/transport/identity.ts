// Who is calling: the credential shape-checked (as authenticate() does, so a typo costs nothing; no message echoes a
// secret) and read once per context. The fingerprint (a hash, never the secret) keys what is kept per identity.
import { createHash } from 'crypto';
import type { IExecuteFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

export type CredentialKind = 'apiKey' | 'anonymous';

export interface Identity {
	kind: CredentialKind;
	credentialType: string;
	baseUrl: string;
	fingerprint: string;
	/** Values that must never reach output, errors or logs. */
	secrets: string[];
}

export function describeApiKeyProblem(key: unknown): string | undefined {
	const value = typeof key === 'string' ? key.trim() : '';
	if (!value) {
		return (
			'The API key is empty. Paste the key from your account settings: it looks like sk_ followed by 40 hex ' +
			'characters (0-9, a-f).'
		);
	}
	if (/^sk_[0-9a-fA-F]{40}$/.test(value)) return undefined;
	return (
		`The API key does not have the expected shape: sk_ followed by exactly 40 hex characters (0-9, a-f), 43 ` +
		`characters in all. The value entered has ${value.length} characters. Copy the key again from your account ` +
		`settings.`
	);
}

/** Earlier builds saved the anonymous ID as "anonymousId", which the credential still lists as a hidden field. */
export function readAnonymousId(data: Record<string, unknown>): unknown {
	const current = data.secretAnonymousId;
	return typeof current === 'string' && current.trim() !== '' ? current : data.anonymousId;
}

export function describeAnonymousIdProblem(id: unknown): string | undefined {
	const value = typeof id === 'string' ? id.trim() : '';
	if (!value) {
		return 'The anonymous ID is empty. Choose any ID of 8 to 80 characters using letters, digits, ".", "_" or "-".';
	}
	if (/^[A-Za-z0-9._-]{8,80}$/.test(value)) return undefined;
	return (
		`The anonymous ID must be 8 to 80 characters long and use only letters, digits, ".", "_" or "-". The ` +
		`value entered has ${value.length} ` +
		`characters${/[^A-Za-z0-9._-]/.test(value) ? ' and contains other characters' : ''}.`
	);
}

function normaliseBaseUrl(baseUrl: unknown): string {
	return (typeof baseUrl === 'string' ? baseUrl.trim() : '').replace(/\/+$/, '');
}

export function describeBaseUrlProblem(baseUrl: unknown): string | undefined {
	const value = normaliseBaseUrl(baseUrl);
	if (!value) return "The Base URL is empty. Enter the API's version 1 root, for example https://api.example.com/v1.";
	const url = /^https?:\/\/[^\s/]+/i.test(value) && URL.canParse(value) ? new URL(value) : undefined;
	if (!url) {
		return (
			`The Base URL must start with https://, for example https://api.example.com/v1 (http:// only for a test ` +
			`service on this computer).`
		);
	}
	// A typo here would send the API key or anonymous ID unencrypted across the network, so http is refused
	// unless the service runs on this computer (127.0.0.0/8, localhost, [::1]).
	const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname.replace(/\.$/, ''));
	if (url.protocol === 'http:' && !loopback) {
		return (
			`The Base URL starts with http://, which would send your API key or anonymous ID unencrypted over the ` +
			`network to ${url.hostname}. Use https:// (for example https://api.example.com/v1). Plain http:// is ` +
			`accepted only for a test service on this computer (localhost, 127.0.0.1 or [::1]).`
		);
	}
	return undefined;
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

async function readIdentity(ctx: ApiContext): Promise<Identity> {
	const kind = readCredentialKind(ctx);
	const credentialType = kind === 'apiKey' ? 'mediaGenApi' : 'mediaGenAnonymousApi';
	const credentials = await ctx.getCredentials(credentialType);
	const secret = kind === 'apiKey' ? credentials.apiKey : readAnonymousId(credentials);
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

// Per context: n8n makes one for each execution, dropdown load and webhook call, in whichever process runs it, so
// an entry dies with its call and nothing is shared between calls or processes. A failed read is not kept.
const identities = new WeakMap<object, Promise<Identity>>();

export async function identityOf(ctx: ApiContext): Promise<Identity> {
	let identity = identities.get(ctx);
	if (!identity) {
		identity = readIdentity(ctx);
		identities.set(ctx, identity);
		identity.catch(() => identities.delete(ctx));
	}
	return await identity;
}
