// Standard Webhooks verification, as the spec's Events section states it. A pure function:
// no n8n imports, no I/O. The signed content is "<webhook-id>.<webhook-timestamp>.<raw body>",
// keyed with the base64-decoded part of the secret after "whsec_"; any one "v1,<base64>" entry
// of the space-separated header may match; timestamps more than 5 minutes away are refused.
import { createHmac, timingSafeEqual } from 'crypto';

import { describeWebhookSecretProblem, readWebhookSecret } from './signingSecret';

export const TOLERANCE_SECONDS = 300;

/** Why a delivery was refused, for callers to classify (the reason is the wording, for people). */
export type VerifyCode = 'no-secret' | 'malformed' | 'stale' | 'no-v1-signature' | 'secret-mismatch';

export type VerifyResult =
	| { ok: true; id: string; timestamp: number; matchedSecret: 'current' | 'previous' }
	| { ok: false; status: 400 | 401; code: Exclude<VerifyCode, 'no-secret'>; reason: string; field?: undefined }
	/** The credential itself is unusable: every delivery is refused until the named field is fixed. */
	| { ok: false; status: 401; code: 'no-secret'; reason: string; field: 'Signing Secret' };

/**
 * The HMAC key of a secret, or undefined when it has none worth trusting: blank, prefix only,
 * not strict base64, or under 16 bytes. Never an empty key, which anyone could sign with.
 */
export function usableSecretKey(secret: unknown): Buffer | undefined {
	const read = readWebhookSecret(secret);
	return 'key' in read ? read.key : undefined;
}

function parseSignatures(header: string): Buffer[] | undefined {
	const entries = header.trim().split(/\s+/).filter(Boolean);
	if (!entries.length) return undefined;
	const v1: Buffer[] = [];
	let wellFormed = 0;
	for (const entry of entries) {
		const comma = entry.indexOf(',');
		if (comma <= 0 || comma === entry.length - 1) continue;
		wellFormed++;
		if (entry.slice(0, comma) !== 'v1') continue; // other versions are ignored
		const value = entry.slice(comma + 1);
		if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) continue;
		v1.push(Buffer.from(value, 'base64'));
	}
	return wellFormed ? v1 : undefined;
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
		const problem = describeWebhookSecretProblem(secrets.current, 'Signing Secret');
		const reason = `Deliveries are refused until the credential is fixed. ${problem}`;
		return { ok: false, status: 401, code: 'no-secret', field: 'Signing Secret', reason };
	}
	// A blank previous secret is absent; an unusable one is never tried.
	const previous = usableSecretKey(secrets.previous);
	const id = headers.id?.trim();
	const ts = headers.timestamp?.trim();
	const sig = headers.signature?.trim();
	if (!id || !ts || !sig) {
		const missing = [!id && 'webhook-id', !ts && 'webhook-timestamp', !sig && 'webhook-signature']
			.filter(Boolean)
			.join(', ');
		return refusal('malformed', `Missing header: ${missing}`);
	}
	if (!/^\d{1,12}$/.test(ts)) return refusal('malformed', 'Malformed webhook-timestamp: expected Unix seconds');
	const signatures = parseSignatures(sig);
	if (!signatures) return refusal('malformed', 'Malformed webhook-signature: expected "v1,<base64>" entries');
	const timestamp = Number(ts);
	if (Math.abs(nowMs / 1000 - timestamp) > TOLERANCE_SECONDS)
		return refusal('stale', 'Timestamp is more than 5 minutes away from now');
	if (!signatures.length) return refusal('no-v1-signature', 'No v1 signature in webhook-signature');
	const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
	const candidates: Array<['current' | 'previous', Buffer]> = [['current', current]];
	if (previous) candidates.push(['previous', previous]);
	for (const [which, key] of candidates) {
		const expected = createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest();
		for (const given of signatures) {
			if (given.length === expected.length && timingSafeEqual(given, expected)) {
				return { ok: true, id, timestamp, matchedSecret: which };
			}
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
	nowMs: number = Date.now(),
): VerifyResult {
	return verifyWebhook(
		{
			id: headerOf(headers, 'webhook-id'),
			timestamp: headerOf(headers, 'webhook-timestamp'),
			signature: headerOf(headers, 'webhook-signature'),
		},
		rawBody,
		{ current: credentials.secret, previous: credentials.previousSecret },
		nowMs,
	);
}
