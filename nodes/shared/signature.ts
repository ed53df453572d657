// Standard Webhooks verification as the spec's Events section states it (pure, no n8n imports): HMAC-SHA256, keyed
// with the decoded secret, of "<webhook-id>.<webhook-timestamp>.<raw body>"; any "v1,<base64>" entry may match.
import { createHmac, timingSafeEqual } from 'crypto';

import { BASE64, describeWebhookSecretProblem, readWebhookSecret } from './signingSecret';

const TOLERANCE_SECONDS = 300;

/** Why a delivery was refused, for callers to classify with the two questions below (the reason is for people). */
type VerifyCode = 'no-secret' | 'malformed' | 'stale' | 'no-v1-signature' | 'secret-mismatch';

/**
 * The signature does not prove the call, but its shape and age are sound: a run read back from the service may stand
 * in for it. The trigger asks this (a stale or malformed call is refused: it could start an execution); pause mode
 * reads back on any refusal, since a read-back there only settles a run the batch already owns.
 */
export function isUnprovenSignature(code: VerifyCode): boolean {
	return code === 'secret-mismatch' || code === 'no-secret' || code === 'no-v1-signature';
}

/** The credential holds no secret, or another than the one the service signs with (no-v1-signature says neither). */
export function isWrongSecret(code: VerifyCode): boolean {
	return code === 'secret-mismatch' || code === 'no-secret';
}

export type VerifyResult =
	| { ok: true; id: string; timestamp: number; matchedSecret: 'current' | 'previous' }
	| { ok: false; status: 400 | 401; code: Exclude<VerifyCode, 'no-secret'>; reason: string; field?: undefined }
	/** The credential itself is unusable: every delivery is refused until the named field is fixed. */
	| { ok: false; status: 401; code: 'no-secret'; reason: string; field: 'Signing Secret' };

/** The HMAC key of a secret, or undefined when it has none worth trusting (never an empty key). */
export function usableSecretKey(secret: unknown): Buffer | undefined {
	const read = readWebhookSecret(secret);
	return 'key' in read ? read.key : undefined;
}

/** The v1 signatures of the header (other versions are ignored), or undefined when no entry is "<version>,<value>". */
function parseSignatures(header: string): Buffer[] | undefined {
	const entries = header
		.split(/\s+/)
		.map((entry) => /^([^,]+),(.+)$/.exec(entry))
		.filter((entry) => entry !== null);
	if (!entries.length) return undefined;
	const v1 = entries.filter(([, version, value]) => version === 'v1' && BASE64.test(value));
	return v1.map(([, , value]) => Buffer.from(value, 'base64'));
}

/** A refusal of the call itself: malformed is a 400, any other a 401. */
function refusal(code: Exclude<VerifyCode, 'no-secret'>, reason: string): VerifyResult {
	return { ok: false, status: code === 'malformed' ? 400 : 401, code, reason };
}

export function verifyWebhook(
	headers: { id?: string | null; timestamp?: string | null; signature?: string | null },
	rawBody: Buffer | string,
	secrets: { current: unknown; previous?: unknown },
	nowMs: number = Date.now(),
): VerifyResult {
	const current = usableSecretKey(secrets.current);
	if (!current) {
		const problem = describeWebhookSecretProblem(secrets.current);
		const reason = `Deliveries are refused until the credential is fixed. ${problem}`;
		return { ok: false, status: 401, code: 'no-secret', field: 'Signing Secret', reason };
	}
	const id = headers.id?.trim();
	const ts = headers.timestamp?.trim();
	const sig = headers.signature?.trim();
	if (!id || !ts || !sig) {
		const missing = [!id && 'webhook-id', !ts && 'webhook-timestamp', !sig && 'webhook-signature'];
		return refusal('malformed', `Missing header: ${missing.filter(Boolean).join(', ')}`);
	}
	if (!/^\d{1,12}$/.test(ts)) return refusal('malformed', 'Malformed webhook-timestamp: expected Unix seconds');
	const signatures = parseSignatures(sig);
	if (!signatures) return refusal('malformed', 'Malformed webhook-signature: expected "v1,<base64>" entries');
	const timestamp = Number(ts);
	if (Math.abs(nowMs / 1000 - timestamp) > TOLERANCE_SECONDS)
		return refusal('stale', 'Timestamp is more than 5 minutes away from now');
	if (!signatures.length) return refusal('no-v1-signature', 'No v1 signature in webhook-signature');
	// A blank previous secret is absent; an unusable one is never tried.
	const keys = { current, previous: usableSecretKey(secrets.previous) };
	for (const which of ['current', 'previous'] as const) {
		if (!keys[which]) continue;
		const expected = createHmac('sha256', keys[which]).update(`${id}.${ts}.`).update(rawBody).digest();
		if (signatures.some((given) => given.length === expected.length && timingSafeEqual(given, expected))) {
			return { ok: true, id, timestamp, matchedSecret: which };
		}
	}
	return refusal('secret-mismatch', 'Signature does not match');
}

/** A header as Node's HTTP server gives it (a repeated header is a list: its first value counts). */
export function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
	const v = headers[name];
	return Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
}

/** Verifies a delivery as it arrives: the request's headers and raw body, the credential's two secrets. */
export function verifyDelivery(
	headers: Record<string, unknown>,
	rawBody: Buffer,
	credentials: { secret?: unknown; previousSecret?: unknown },
): VerifyResult {
	const [id, timestamp, signature] = ['id', 'timestamp', 'signature'].map((h) => headerOf(headers, `webhook-${h}`));
	const secrets = { current: credentials.secret, previous: credentials.previousSecret };
	return verifyWebhook({ id, timestamp, signature }, rawBody, secrets);
}
