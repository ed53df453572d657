// Deliveries signed as the service signs them: Standard Webhooks headers from the sandbox's own signWebhook, the
// one signing implementation of the tests (test/sandbox/conformance.test.ts checks it against the standardwebhooks
// library; test/unit/nodes/shared/signature.test.ts checks the node's verification against that library alone).
import { signWebhook } from '../../sandbox/webhooks';

/** A signing secret ("whsec_…", or bare base64), or the raw HMAC key itself (a forger's empty key, say). */
export type SigningKey = string | Buffer;

/**
 * POSTs `body` to `url` as the service delivers it: webhook-id `id`, webhook-timestamp `timestamp` (now, in
 * seconds), signed with `key`. A forgery is the same call with another key or another timestamp.
 */
export function postSigned(
	url: string,
	key: SigningKey,
	id: string,
	body: string,
	timestamp = Math.floor(Date.now() / 1000),
): Promise<Response> {
	// signWebhook reads a secret without the whsec_ prefix as base64, so a raw key goes in as its base64.
	const secret = typeof key === 'string' ? key : key.toString('base64');
	return fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signWebhook(secret, id, timestamp, body),
		},
		body,
	});
}
