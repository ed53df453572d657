// Identities for unit tests: one as nodes/shared/transport/identity.ts reads it from a credential, for tests that
// build the request loop's errors by hand; and the credential a context built by hand hands the transport.
import type { CredentialKind, Identity } from '../../nodes/shared/transport/identity';

export const testIdentity: Identity = {
	kind: 'apiKey',
	credentialType: 'mediaGenApi',
	baseUrl: 'http://127.0.0.1:1/v1',
	fingerprint: 'f',
	secrets: ['sk_0123456789abcdef'],
};

/**
 * getCredentials for a context built by hand: a well-formed credential of `kind` at `baseUrl`. Each `n` is another
 * secret, so another identity with rate budgets of its own. The context says `kind` in its Authentication field.
 */
export function credentialsOf(kind: CredentialKind, baseUrl: string, n = 0) {
	const secret = kind === 'apiKey' ? `sk_${n.toString(16).padStart(40, '0')}` : `unit-test-anonymous-${n}`;
	return async () => (kind === 'apiKey' ? { apiKey: secret, baseUrl } : { secretAnonymousId: secret, baseUrl });
}
