// Trigger abuse: 1,000 seeded random or forged deliveries start no workflow and crash nothing;
// 200 valid deliveries, half of them repeats, start exactly one workflow per unique webhook-id.
import { seeded } from '../../sandbox/faults';
import { newWebhookSecret, signWebhook } from '../../sandbox/webhooks';
import { hostTrigger, type WebhookHost } from '../helpers/webhookHost';

const SECRET = newWebhookSecret();
let host: WebhookHost;
beforeAll(async () => {
	host = await hostTrigger({}, { secret: SECRET });
});
afterAll(async () => host.close());

// The sandbox's signWebhook over the timestamp header read as a number: 'abc', '' and '1e9' sign as NaN, 0 and
// 1000000000, and are refused as malformed whatever the signature.
const sign = (secret: string, id: string, ts: string, body: string) => signWebhook(secret, id, Number(ts), body);
const runBody = (n: number) =>
	JSON.stringify({
		id: `gen_${n}`,
		kind: 'image',
		model: 'studio-image-v1',
		status: n % 3 ? 'SUCCEEDED' : 'FAILED',
		cost: 5,
		outputs: [],
		error: null,
		createdAt: 1,
		prompt: 'p',
		options: {},
	});

async function send(headers: Record<string, string>, body: string): Promise<number> {
	const res = await fetch(host.url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
	});
	await res.text();
	return res.status;
}

test('1,000 seeded random or forged deliveries start nothing and crash nothing', async () => {
	const random = seeded(424242);
	const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
	const junk = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
	const statuses: number[] = [];
	for (let i = 0; i < 1000; i++) {
		const now = Math.floor(Date.now() / 1000);
		const body = pick([
			runBody(i),
			junk(Math.floor(random() * 300)).toString('latin1'),
			'{}',
			'',
			'{"id":',
			JSON.stringify({ type: 'test' }),
		]);
		const id = pick([`msg_${i}`, '', ' ', 'x'.repeat(500), `msg_${i}\u0000`]);
		const ts = pick([String(now), String(now - 400), String(now + 400), 'abc', '', '1e9', String(now) + '0']);
		const signature = pick([
			sign(newWebhookSecret(), id, ts, body), // forged with another secret
			sign(SECRET, id, String(Number(ts) + 1), body), // signed over another timestamp
			sign(SECRET, `${id}x`, ts, body), // signed over another id
			sign(SECRET, id, ts, `${body} `), // signed over another body
			`v2,${sign(SECRET, id, ts, body).slice(3)}`, // right signature, unknown version
			'v1,' + junk(32).toString('base64'),
			'garbage',
			'',
			`v1, ${'A'.repeat(44)}`,
		]);
		const headers: Record<string, string> = {};
		if (id.trim() && !id.includes('\u0000')) headers['webhook-id'] = id;
		if (ts) headers['webhook-timestamp'] = ts;
		if (signature) headers['webhook-signature'] = signature;
		statuses.push(await send(headers, body));
	}
	expect(host.started).toHaveLength(0);
	expect(statuses.every((s) => s === 400 || s === 401)).toBe(true);
	expect(host.responses.some((r) => r.status === 500)).toBe(false);
}, 120_000);

test('200 valid deliveries, half repeats: one start per unique webhook-id', async () => {
	const before = host.started.length;
	const random = seeded(777);
	const order = Array.from({ length: 200 }, (_, i) => i % 100).sort(() => random() - 0.5);
	const statuses: number[] = [];
	for (const n of order) {
		const now = String(Math.floor(Date.now() / 1000));
		const id = `msg_gen_${n}_${n % 3 ? 'succeeded' : 'failed'}`;
		const body = runBody(n);
		statuses.push(
			await send(
				{ 'webhook-id': id, 'webhook-timestamp': now, 'webhook-signature': sign(SECRET, id, now, body) },
				body,
			),
		);
	}
	expect(statuses.every((s) => s === 200)).toBe(true);
	const started = host.started.slice(before).map((items) => items[0].json.webhookId);
	expect(started).toHaveLength(100);
	expect(new Set(started).size).toBe(100);
}, 120_000);
