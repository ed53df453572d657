// Who is calling: reads the node's credential, checks its shape before any request is sent, and keeps
// a fingerprint (never the secret) that keys caches and rate budgets. Read once per context (identityOf), so the
// transport and the few callers that need a field ask for it instead of passing it along.
import { createHash } from 'crypto';
import type { IExecuteFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	describeAnonymousIdProblem,
	describeApiKeyProblem,
	describeBaseUrlProblem,
	normaliseBaseUrl,
	readAnonymousId,
} from './credentialShapes';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

export type CredentialKind = 'apiKey' | 'anonymous';

export const CREDENTIAL_TYPES: Record<CredentialKind, string> = {
	apiKey: 'mediaGenApi',
	anonymous: 'mediaGenAnonymousApi',
};

export interface Identity {
	kind: CredentialKind;
	credentialType: string;
	baseUrl: string;
	/** A hash of the secret, never the secret: keys caches and rate budgets per identity. */
	fingerprint: string;
	/** Values that must never reach output, errors or logs. */
	secrets: string[];
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

/** Reads and shape-checks the credential before any request is sent. */
async function readIdentity(ctx: ApiContext): Promise<Identity> {
	const kind = readCredentialKind(ctx);
	const credentialType = CREDENTIAL_TYPES[kind];
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

/**
 * A per-context cache: n8n makes a context for each execution, dropdown load and webhook call, so an entry dies with
 * its context (nothing is shared between executions, or between n8n processes). A failed read is not kept: the next
 * call reads the credential again and fails the same way, or succeeds once it is corrected.
 */
const identities = new WeakMap<object, Promise<Identity>>();

/** The caller's identity: the credential read and shape-checked once per context. */
export async function identityOf(ctx: ApiContext): Promise<Identity> {
	let identity = identities.get(ctx);
	if (!identity) {
		identity = readIdentity(ctx);
		identities.set(ctx, identity);
		identity.catch(() => identities.delete(ctx));
	}
	return await identity;
}
