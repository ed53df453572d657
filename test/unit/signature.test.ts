import { Webhook } from 'standardwebhooks';

import { verifyWebhook } from '../../nodes/MediaGenTrigger/signature';

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
		expect(() => new Webhook(SECRET).verify(body, { 'webhook-id': h.id, 'webhook-timestamp': h.timestamp, 'webhook-signature': h.signature })).not.toThrow();
	});

	test('rejects a changed body byte', () => {
		const h = signed();
		const changed = body.replace('SUCCEEDED', 'SUCCEEDEE');
		expect(verifyWebhook(h, changed, { current: SECRET })).toMatchObject({ ok: false, status: 401 });
	});

	test('rejects a wrong secret', () => expect(verifyWebhook(signed(OTHER), body, { current: SECRET })).toMatchObject({ ok: false, status: 401 }));

	test('a secret without the whsec_ prefix is read as base64, as the library does', () => {
		const bare = SECRET.slice(6);
		expect(verifyWebhook(signed(SECRET), body, { current: bare }).ok).toBe(true);
		expect(verifyWebhook(signed(bare), body, { current: SECRET }).ok).toBe(true);
	});

	test('rejects a stale and a future timestamp (over 5 minutes)', () => {
		const now = Date.now();
		expect(verifyWebhook(signed(SECRET, new Date(now - 301_000)), body, { current: SECRET }, now)).toMatchObject({ ok: false, status: 401 });
		expect(verifyWebhook(signed(SECRET, new Date(now + 301_000)), body, { current: SECRET }, now)).toMatchObject({ ok: false, status: 401 });
		expect(verifyWebhook(signed(SECRET, new Date(now - 290_000)), body, { current: SECRET }, now).ok).toBe(true);
	});

	test('rejects missing and malformed headers with 400', () => {
		const h = signed();
		expect(verifyWebhook({ ...h, id: undefined }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, timestamp: undefined }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, signature: '' }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, timestamp: 'yesterday' }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
		expect(verifyWebhook({ ...h, signature: 'garbage' }, body, { current: SECRET })).toMatchObject({ ok: false, status: 400 });
	});

	test('an unknown version prefix alone is rejected', () => {
		const h = signed();
		expect(verifyWebhook({ ...h, signature: h.signature.replace(/^v1,/, 'v2,') }, body, { current: SECRET })).toMatchObject({ ok: false, status: 401 });
	});

	test('accepts a header with several signatures where one is valid', () => {
		const h = signed();
		const bad = signed(OTHER).signature;
		expect(verifyWebhook({ ...h, signature: `${bad} v2,abcd ${h.signature}` }, body, { current: SECRET }).ok).toBe(true);
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
