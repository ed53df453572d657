/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The trigger receives real deliveries from the sandbox (registered endpoint and per-run webhookUrl,
// succeeded and failed runs, retries) and never starts for forged or replayed ones.
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import { newWebhookSecret, signWebhook } from '../../sandbox/webhooks';
import { activateTrigger, hostTrigger, type WebhookHost } from '../helpers/webhookHost';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { postSigned } from '../helpers/signing';
import { until } from '../helpers/until';
import { deliveryOf } from '../helpers/world';

let backend: TestBackend;
let host: WebhookHost | undefined;
/** Waits until every delivery of the runs `ids` (or every delivery, and at least `count`) was answered 2xx. */
const delivered = (what: string, count: number, runIds?: string[]) =>
	until(() => {
		const mine = backend.sandbox.engine.webhooks.deliveries.filter((d) => !runIds || runIds.includes(d.runId ?? ''));
		return mine.length >= count && mine.every((d) => d.delivered);
	}, what);
const H = () => ({ authorization: `Bearer ${backend.account.keys[0]}`, 'content-type': 'application/json' });
const submit = (body: Record<string, unknown>) =>
	fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: H(),
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', options: { resolution: '1K' }, ...body }),
	}).then(async (r) => ((await r.json()) as any).generation);

beforeEach(async () => {
	backend = await startBackend({ timeScale: 0.0005 }); // a 1-minute retry after 30 ms
});
afterEach(async () => {
	await host?.close();
	host = undefined;
	await backend.sandbox.close();
});

test('a registered endpoint: succeeded and failed runs each start the workflow once, with the run data', async () => {
	const secret = newWebhookSecret();
	host = await hostTrigger({}, { secret });
	backend.sandbox.engine.addEndpoint(backend.account.id, host.url, secret);
	const ok = await submit({ prompt: 'good' });
	const bad = await submit({ prompt: 'bad [fail]' });
	await delivered('both runs delivered', 2, [ok.id, bad.id]);
	expect(host.started).toHaveLength(2);
	const byId = Object.fromEntries(host.started.map((items) => [items[0].json.id, items[0].json]));
	expect(byId[ok.id]).toMatchObject({ status: 'SUCCEEDED', outcome: 'succeeded', webhookId: `msg_${ok.id}_succeeded` });
	expect(byId[bad.id]).toMatchObject({ status: 'FAILED', outcome: 'failed', refunded: 5 });
});

test('a per-run webhookUrl: the sandbox retries a delivery whose answer was lost, and resends it; the workflow starts once', async () => {
	const secret = backend.account.webhookSecret;
	host = await hostTrigger({}, { secret }, 1);
	// The first answer is lost (sandbox sees a failure) although the trigger accepted it: the retry must not start again.
	const original = host.url;
	const run = await submit({ prompt: 'retried', webhookUrl: original });
	await delivered('the scheduled retry delivered', 1, [run.id]);
	const delivery = deliveryOf(backend.sandbox, run.id)!;
	backend.sandbox.engine.webhooks.resend(delivery.id);
	backend.sandbox.engine.webhooks.resend(delivery.id);
	await until(() => delivery.attempts.length >= 4, 'both resends answered');
	expect(delivery.attempts.length).toBe(4); // first (answer lost), scheduled retry, two resends
	expect(delivery.attempts[0].status).toBe(500);
	expect(delivery.delivered).toBe(true);
	expect(host.started).toHaveLength(1);
	expect(host.responses.slice(1).every((r) => r.status === 200)).toBe(true);
});

test('forged, stale and replayed-with-new-timestamp deliveries start nothing and reveal no secret', async () => {
	const secret = newWebhookSecret();
	host = await hostTrigger({}, { secret });
	const body = JSON.stringify({ id: 'gen_forged', kind: 'image', model: 'x', status: 'SUCCEEDED', outputs: [] });
	const now = Math.floor(Date.now() / 1000);
	const post = (headers: Record<string, string>, b = body) =>
		fetch(host!.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: b });
	const forged = await post({
		'webhook-id': 'msg_a',
		'webhook-timestamp': String(now),
		'webhook-signature': signWebhook(newWebhookSecret(), 'msg_a', now, body),
	});
	expect(forged.status).toBe(401);
	const stale = await post({
		'webhook-id': 'msg_b',
		'webhook-timestamp': String(now - 600),
		'webhook-signature': signWebhook(secret, 'msg_b', now - 600, body),
	});
	expect(stale.status).toBe(401);
	const tampered = await post(
		{
			'webhook-id': 'msg_c',
			'webhook-timestamp': String(now),
			'webhook-signature': signWebhook(secret, 'msg_c', now, body),
		},
		body.replace('gen_forged', 'gen_forgee'),
	);
	expect(tampered.status).toBe(401);
	const missing = await post({ 'webhook-id': 'msg_d' });
	expect(missing.status).toBe(400);
	const text = [await forged.text(), await stale.text(), await tampered.text(), await missing.text()].join(' ');
	expect(text).not.toContain(secret.slice(6));
	expect(host.started).toHaveLength(0);
	// A valid one, then the very same bytes replayed: started once.
	const valid = {
		'webhook-id': 'msg_e',
		'webhook-timestamp': String(now),
		'webhook-signature': signWebhook(secret, 'msg_e', now, body),
	};
	expect((await post(valid)).status).toBe(200);
	expect((await post(valid)).status).toBe(200);
	expect(host.started).toHaveLength(1);
});

test('filters drop deliveries but still answer 200; test events are passed on marked or ignored', async () => {
	const secret = newWebhookSecret();
	host = await hostTrigger({ outcomes: ['failed'], kinds: ['image'] }, { secret });
	backend.sandbox.engine.addEndpoint(backend.account.id, host.url, secret);
	await submit({ prompt: 'fine' });
	await submit({ prompt: 'broken [fail]' });
	await delivered('both runs delivered', 2);
	expect(host.started).toHaveLength(1);
	expect(host.started[0][0].json.outcome).toBe('failed');
	expect(host.responses.filter((r) => r.status === 200)).toHaveLength(2);
	backend.sandbox.engine.sendTestEvent(backend.account.id);
	await delivered('the test event delivered', 3);
	expect(host.started).toHaveLength(2);
	expect(host.started[1][0].json.testEvent).toBe(true);
});

test('rotation: deliveries signed with the previous secret are accepted', async () => {
	const oldSecret = newWebhookSecret();
	host = await hostTrigger({}, { secret: newWebhookSecret(), previousSecret: oldSecret });
	backend.sandbox.engine.addEndpoint(backend.account.id, host.url, oldSecret);
	await submit({ prompt: 'rotating' });
	await delivered('the run delivered', 1);
	expect(host.started).toHaveLength(1);
});

describe("remembered webhook-ids are durable (n8n 2.40's static-data saving, modelled in the host)", () => {
	const runBody = (n: number) => JSON.stringify({ id: `gen_d${n}`, kind: 'image', model: 'm', status: 'SUCCEEDED' });
	const deliver = async (url: string, secret: string, n: number) => {
		const res = await postSigned(url, secret, `msg_gen_d${n}_succeeded`, runBody(n));
		await res.text();
		return res.status;
	};
	const storedIds = (h: WebhookHost) => {
		const stored = JSON.parse(h.store.json ?? '{}') as Record<string, { seenWebhookIds?: object }>;
		return Object.keys(stored['node:Media Generation Trigger']?.seenWebhookIds ?? {});
	};

	test('30 sequential + 40 concurrent deliveries, a restart: every replay gets 200 and starts nothing', async () => {
		const secret = newWebhookSecret();
		host = await hostTrigger({}, { secret });
		for (let n = 0; n < 30; n++) expect(await deliver(host.url, secret, n)).toBe(200);
		for (let n = 30; n < 70; n += 10) {
			const batch = Array.from({ length: 10 }, (_, i) => deliver(host!.url, secret, n + i));
			expect(await Promise.all(batch)).toEqual(Array(10).fill(200));
		}
		expect(host.started).toHaveLength(70);
		expect(storedIds(host)).toHaveLength(70);
		const store = host.store;
		await host.close();
		// A new process on the same database: its memory is empty, only the stored ids remain.
		host = await hostTrigger({}, { secret }, 0, { store });
		const replays = await Promise.all(Array.from({ length: 70 }, (_, n) => deliver(host!.url, secret, n)));
		expect(replays.every((s) => s === 200)).toBe(true);
		expect(host.started).toHaveLength(0);
	});
});

describe('a blank or undecodable secret never lets a forged delivery in', () => {
	const body = JSON.stringify({ id: 'gen_blank', kind: 'image', model: 'x', status: 'SUCCEEDED', outputs: [] });
	const post = (id: string, key: Buffer) => postSigned(host!.url, key, id, body);
	/** What Node's lenient base64 decoder makes of a secret: the key a forger would sign with. */
	const keyOf = (secret: string) => Buffer.from(secret.trim().slice(6), 'base64');
	const EMPTY_KEY = Buffer.alloc(0);

	test.each([' ', 'whsec_', 'whsec_!!'])('Previous Signing Secret %j: an empty-key signature gets 401', async (old) => {
		const secret = newWebhookSecret();
		host = await hostTrigger({}, { secret, previousSecret: old });
		expect((await post('msg_forged_succeeded', EMPTY_KEY)).status).toBe(401);
		expect(host.started).toHaveLength(0);
		expect((await post('msg_real_succeeded', keyOf(secret))).status).toBe(200); // the current secret still works
		expect(host.started).toHaveLength(1);
	});

	test.each([' ', 'whsec_', 'whsec_!!', 'whsec_YQ=='])('Signing Secret %j: all deliveries get 401', async (s) => {
		const secret = String(s);
		const errors = jest.spyOn(Container.get(Logger), 'error').mockImplementation(() => undefined);
		try {
			host = await hostTrigger({}, { secret });
			for (const key of [EMPTY_KEY, keyOf(secret)]) {
				const res = await post('msg_forged_succeeded', key);
				expect(res.status).toBe(401);
				expect(await res.text()).toMatch(/Signing Secret/);
			}
			expect(host.started).toHaveLength(0);
			// Logged through n8n's logger, never with the secret.
			expect(errors).toHaveBeenCalledWith(expect.stringMatching(/Signing Secret/));
			if (secret.length > 7) expect(JSON.stringify(errors.mock.calls)).not.toContain(secret);
		} finally {
			errors.mockRestore();
		}
	});

	test('activation is refused without a usable secret, or with a non-blank unusable previous one', async () => {
		const good = newWebhookSecret();
		await expect(activateTrigger({ secret: good, previousSecret: ' ' })).resolves.toBe(true);
		await expect(activateTrigger({ secret: ' ' })).rejects.toThrow(/^The Signing Secret is empty/);
		await expect(activateTrigger({ secret: 'whsec_' })).rejects.toThrow(/^The Signing Secret holds only the prefix/);
		const badPrevious = activateTrigger({ secret: good, previousSecret: 'whsec_!!' });
		await expect(badPrevious).rejects.toThrow(/^The Previous Signing Secret does not have/);
	});

	test('activation: a version 1 trigger needs no API key; a 1.1 one with Check Unverified Deliveries on does', async () => {
		const secret = { secret: newWebhookSecret() };
		await expect(activateTrigger(secret, {}, { typeVersion: 1 })).resolves.toBe(true);
		await expect(activateTrigger(secret, { readBack: false }, { typeVersion: 1.1 })).resolves.toBe(true);
		const on = { readBack: true };
		await expect(activateTrigger(secret, on, { typeVersion: 1.1, withApiCredential: true })).resolves.toBe(true);
		const refused = activateTrigger(secret, on, { typeVersion: 1.1 });
		await expect(refused).rejects.toThrow('Check Unverified Deliveries is on, but the API Key box is empty');
		await expect(refused).rejects.toMatchObject({
			description: expect.stringContaining('Pick your Media Generation API credential in the API Key box'),
		});
	});
});
