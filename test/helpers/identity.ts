// An API-key identity as nodes/shared/transport/identity.ts reads it from a credential, for unit tests that build
// the request loop's errors by hand.
import type { Identity } from '../../nodes/shared/transport/identity';

export const testIdentity: Identity = {
	kind: 'apiKey',
	credentialType: 'mediaGenApi',
	baseUrl: 'http://127.0.0.1:1/v1',
	fingerprint: 'f',
	secrets: ['sk_0123456789abcdef'],
};
