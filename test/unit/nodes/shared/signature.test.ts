// nodes/shared/signature.ts: Standard Webhooks verification, checked against the standardwebhooks library.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

import { isUnprovenSignature, isWrongSecret, usableSecretKey, verifyWebhook } from '../../../../nodes/shared/signature';

const SECRET = `whsec_${Buffer.from('a very secret signing key 123456').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another secret signing key 98765').toString('base64')}`;
const body = JSON.stringify({ id: 'gen_1', status: 'SUCCEEDED', kind: 'image', outputs: [] });

function signed(secret = SECRET, at = new Date(), id = 'msg_gen_1_succeeded', payload = body) {
	const signature = new Webhook(secret).sign(id, at, payload);
	return { id, timestamp: String(Math.floor(at.getTime() / 1000)), signature };
}

describe('verifyWebhook against the standardwebhooks library', () => {
	test('accepts a delivery signed by the library, and the library accepts what we accept', () => {
		const h = signed();
		expect(verifyWebhook(h, body, { current: SECRET }).ok).toBe(true);
		expect(() =>
			new Webhook(SECRET).verify(body, {
				'webhook-id': h.id,
				'webhook-timestamp': h.timestamp,
				'webhook-signature': h.signature,
			}),
		).not.toThrow();
	});

	test('rejects a changed body byte', () => {
		const h = signed();
		const changed = body.replace('SUCCEEDED', 'SUCCEEDEE');
		expect(verifyWebhook(h, changed, { current: SECRET })).toMatchObject({ ok: false, status: 401 });
	});

	test('rejects a wrong secret', () =>
		expect(verifyWebhook(signed(OTHER), body, { current: SECRET })).toMatchObject({ ok: false, status: 401 }));

	test('a secret without the whsec_ prefix is read as base64, as the library does', () => {
		const bare = SECRET.slice(6);
		expect(verifyWebhook(signed(SECRET), body, { current: bare }).ok).toBe(true);
		expect(verifyWebhook(signed(bare), body, { current: SECRET }).ok).toBe(true);
	});

	test('rejects a stale and a future timestamp (over 5 minutes)', () => {
		const now = Date.now();
		expect(verifyWebhook(signed(SECRET, new Date(now - 301_000)), body, { current: SECRET }, now)).toMatchObject({
			ok: false,
			status: 401,
		});
		expect(verifyWebhook(signed(SECRET, new Date(now + 301_000)), body, { current: SECRET }, now)).toMatchObject({
			ok: false,
			status: 401,
		});
		expect(verifyWebhook(signed(SECRET, new Date(now - 290_000)), body, { current: SECRET }, now).ok).toBe(true);
	});

	test('every refusal carries a code callers classify by (the reason is for people)', () => {
		const h = signed();
		const code = (headers: Parameters<typeof verifyWebhook>[0], secret: unknown = SECRET) => {
			const r = verifyWebhook(headers, body, { current: secret });
			return r.ok ? 'ok' : r.code;
		};
		expect(code({ ...h, id: undefined })).toBe('malformed');
		expect(code({ ...h, timestamp: 'soon' })).toBe('malformed');
		expect(code({ ...h, signature: 'garbage' })).toBe('malformed');
		const beyondTolerance = new Date(Date.now() - 301_000);
		expect(code(signed(SECRET, beyondTolerance))).toBe('stale');
		expect(code({ ...h, signature: 'v2,abcd' })).toBe('no-v1-signature');
		expect(code(signed(OTHER))).toBe('secret-mismatch');
		expect(code(h, 'whsec_')).toBe('no-secret');
	});

	test('rejects missing and malformed headers with 400', () => {
		const h = signed();
		expect(verifyWebhook({ ...h, id: undefined }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, timestamp: undefined }, body, { current: SECRET })).toMatchObject({
			ok: false,
			status: 400,
		});
		expect(verifyWebhook({ ...h, signature: '' }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, timestamp: 'yesterday' }, body, { current: SECRET })).toMatchObject({
			ok: false,
			status: 400,
		});
		expect(verifyWebhook({ ...h, signature: 'garbage' }, body, { current: SECRET })).toMatchObject({
			ok: false,
			status: 400,
		});
	});

	test('an unknown version prefix alone is rejected', () => {
		const h = signed();
		expect(
			verifyWebhook({ ...h, signature: h.signature.replace(/^v1,/, 'v2,') }, body, { current: SECRET }),
		).toMatchObject({ ok: false, status: 401 });
	});

	test('accepts a header with several signatures where one is valid', () => {
		const h = signed();
		const bad = signed(OTHER).signature;
		expect(verifyWebhook({ ...h, signature: `${bad} v2,abcd ${h.signature}` }, body, { current: SECRET }).ok).toBe(
			true,
		);
	});

	test('accepts the previous secret during rotation', () => {
		const result = verifyWebhook(signed(OTHER), body, { current: SECRET, previous: OTHER });
		expect(result).toMatchObject({ ok: true, matchedSecret: 'previous' });
	});

	test('works on the raw bytes, not re-serialised JSON', () => {
		const spaced = '{ "id": "gen_1",  "status": "SUCCEEDED" }';
		const h = signed(SECRET, new Date(), 'msg_x', spaced);
		expect(verifyWebhook(h, Buffer.from(spaced), { current: SECRET }).ok).toBe(true);
		expect(verifyWebhook(h, JSON.stringify(JSON.parse(spaced)), { current: SECRET }).ok).toBe(false);
	});

	test('the reason never contains the secret or the expected signature', () => {
		const h = signed(OTHER);
		const r = verifyWebhook(h, body, { current: SECRET });
		expect(JSON.stringify(r)).not.toContain(SECRET.slice(6));
		expect(JSON.stringify(r)).not.toContain(signed().signature.slice(3));
	});
});

// Secrets that hold no real key: blank, prefix only, characters outside base64, not canonical
// base64, under 16 bytes. Lenient decoding turned several of them into an empty HMAC key.
const key = (bytes: number) => Buffer.alloc(bytes, 0x5a).toString('base64');
const UNUSABLE_SECRETS = [
	'',
	' ',
	'\t\n',
	'whsec_',
	'!!',
	'whsec_!!',
	'whsec_!!!notbase64',
	'====',
	'whsec_====',
	'YQ==',
	'whsec_YQ==',
	'whsec_YR==',
	'whsec_abc',
	key(15),
	`whsec_${key(15)}`,
	`whsec_${key(24)}!`,
	`whsec_${key(12)} ${key(12)}`,
	`whsec_whsec_${key(24)}`,
	`whsec_${key(24).slice(0, -1)}`,
	'whsec_\u00e9\u00e9\u00e9\u00e9',
];
const ALL_UNUSABLE = UNUSABLE_SECRETS.flatMap((s) => [s, ` ${s} `, `\n${s}\t`]);

describe('a secret without a usable key never verifies', () => {
	const at = new Date();
	const id = 'msg_gen_9_succeeded';
	const ts = String(Math.floor(at.getTime() / 1000));
	const hmac = (k: Buffer) => `v1,${createHmac('sha256', k).update(`${id}.${ts}.${body}`).digest('base64')}`;
	const check = (signature: string, secrets: { current: unknown; previous?: unknown }) =>
		verifyWebhook({ id, timestamp: ts, signature }, body, secrets);
	// What an attacker would sign with: the empty key, and what Node's lenient decoder makes of the secret.
	const lenientKey = (secret: string) => Buffer.from(secret.trim().replace(/^whsec_/, ''), 'base64');
	const forgeries = (secret: string) => [hmac(Buffer.alloc(0)), hmac(lenientKey(secret))];

	test.each(ALL_UNUSABLE)('as the current secret, %j refuses every delivery naming the field', (secret) => {
		expect(usableSecretKey(secret)).toBeUndefined();
		for (const signature of [...forgeries(secret), signed().signature]) {
			const r = check(signature, { current: secret });
			expect(r).toMatchObject({ ok: false, status: 401, field: 'Signing Secret' });
			expect(!r.ok && r.reason).toMatch(/Signing Secret/);
			if (secret.trim().length > 6) expect(JSON.stringify(r)).not.toContain(secret.trim());
		}
	});

	test.each(ALL_UNUSABLE)('as the previous secret, %j is never tried; the current one still works', (secret) => {
		for (const signature of forgeries(secret)) {
			const r = check(signature, { current: SECRET, previous: secret });
			expect(r).toEqual({ ok: false, status: 401, code: 'secret-mismatch', reason: 'Signature does not match' });
		}
		const valid = verifyWebhook(signed(), body, { current: SECRET, previous: secret });
		expect(valid).toMatchObject({ ok: true, matchedSecret: 'current' });
	});

	test('non-string secrets (numbers, null, objects from an expression) are unusable too', () => {
		for (const secret of [undefined, null, 0, 1234567890123456, {}, ['whsec_']]) {
			expect(check(hmac(Buffer.alloc(0)), { current: secret })).toMatchObject({ ok: false, field: 'Signing Secret' });
		}
	});
});

describe('the standardwebhooks library agrees on every valid secret', () => {
	const random = (() => {
		let s = 20240613;
		return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	})();
	const cases = Array.from({ length: 120 }, (_, i) => {
		const bytes = Buffer.from(Array.from({ length: 16 + Math.floor(random() * 49) }, () => Math.floor(random() * 256)));
		return { secret: `${i % 2 ? 'whsec_' : ''}${bytes.toString('base64')}`, bytes };
	});

	test.each(cases.slice(0, 12).map((c) => [c.bytes.length, c.secret]))(
		'%i-byte key %p: accepted both ways',
		(_n, s) => {
			const secret = String(s);
			const h = signed(secret);
			expect(verifyWebhook(h, body, { current: ` ${secret}\n` }).ok).toBe(true);
			const asPrevious = verifyWebhook(h, body, { current: SECRET, previous: secret });
			expect(asPrevious).toMatchObject({ ok: true, matchedSecret: 'previous' });
		},
	);

	test('120 random keys (16 to 64 bytes, with and without the prefix): same verdicts both ways', () => {
		const at = new Date();
		const ts = String(Math.floor(at.getTime() / 1000));
		for (const { secret, bytes } of cases) {
			expect(usableSecretKey(secret)?.equals(bytes)).toBe(true);
			expect(verifyWebhook(signed(secret, at), body, { current: secret }).ok).toBe(true);
			const ours = `v1,${createHmac('sha256', usableSecretKey(secret)!).update(`msg_x.${ts}.${body}`).digest('base64')}`;
			const headers = { 'webhook-id': 'msg_x', 'webhook-timestamp': ts, 'webhook-signature': ours };
			expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
		}
	});
});

describe('what a refusal says, asked by code (the trigger and pause mode ask the same two questions)', () => {
	test.each([
		['secret-mismatch', true, true],
		['no-secret', true, true],
		['no-v1-signature', true, false],
		['malformed', false, false],
		['stale', false, false],
	] as const)('%s: signature unproven %s, wrong secret %s', (code, unproven, wrong) => {
		expect(isUnprovenSignature(code)).toBe(unproven);
		expect(isWrongSecret(code)).toBe(wrong);
	});
});
