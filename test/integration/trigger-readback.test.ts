/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The trigger does not depend on which secret signs a run's own Webhook URL (the spec does not say): with an API
// credential attached, a delivery that fails the signature check is read back from the service and starts the
// workflow once when its run is real and final; without one it is refused (401) and n8n's log names the secret
// it expected. With Download Outputs on, the delivery is answered before the files are downloaded.
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { createHmac } from 'node:crypto';

import { newWebhookSecret } from '../../sandbox/webhooks';
import { heldVideoRun, startHeldFileServer } from '../helpers/heldFileServer';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { hostTrigger, type WebhookHost } from '../helpers/webhookHost';

let backend: TestBackend;
let host: WebhookHost | undefined;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
	backend = await startBackend({ strict: true, timeScale: 0.0005 }); // a 1-minute retry after 30 ms
});
afterEach(async () => {
	await host?.close();
	host = undefined;
	await backend.sandbox.close();
});

const api = () => ({ baseUrl: backend.sandbox.baseUrl, apiKey: backend.account.keys[0] });

async function submit(body: Record<string, unknown>): Promise<{ id: string }> {
	const res = await fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${backend.account.keys[0]}`, 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', options: { resolution: '1K' }, ...body }),
	});
	return ((await res.json()) as { generation: { id: string } }).generation;
}

const deliveryOf = (runId: string) => backend.sandbox.engine.webhooks.deliveries.find((d) => d.runId === runId);

async function delivered(runId: string): Promise<void> {
	for (let i = 0; i < 100 && !deliveryOf(runId)?.attempts.length; i++) await settle(50);
}

function signed(url: string, secret: string, id: string, body: string): Promise<Response> {
	const ts = Math.floor(Date.now() / 1000);
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const signature = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
	return fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(ts),
			'webhook-signature': signature,
		},
		body,
	});
}

test('a per-run delivery signed with another secret starts the workflow once when an API credential is attached', async () => {
	host = await hostTrigger({}, { secret: backend.account.webhookSecret }, 0, { apiCredentials: api() });
	const run = await submit({ prompt: 'read me back', webhookUrl: host.url });
	await delivered(run.id);
	const delivery = deliveryOf(run.id)!;
	expect(delivery.attempts[0].status).toBe(200);
	// Resent by the service twice more: still one execution.
	backend.sandbox.engine.webhooks.resend(delivery.id);
	backend.sandbox.engine.webhooks.resend(delivery.id);
	await settle(300);
	expect(host.started).toHaveLength(1);
	expect(host.started[0][0].json).toMatchObject({
		id: run.id,
		status: 'SUCCEEDED',
		outcome: 'succeeded',
		webhookId: `msg_${run.id}_succeeded`,
	});
	expect(backend.charges()).toBe(5);
});

test('without an API credential the same delivery gets 401, starts nothing, and the log names the secret to check', async () => {
	const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => undefined);
	try {
		host = await hostTrigger({}, { secret: backend.account.webhookSecret });
		const run = await submit({ prompt: 'refused', webhookUrl: host.url });
		await delivered(run.id);
		expect(deliveryOf(run.id)!.attempts[0].status).toBe(401);
		expect(host.started).toHaveLength(0);
		const logged = JSON.stringify(warn.mock.calls);
		expect(logged).toMatch(/refused a delivery \(Signature does not match\)/);
		expect(logged).toContain(
			'not signed with the secret in the Webhook Signing Secret credential \\"Webhook secret\\"',
		);
		expect(logged).toMatch(/Attach a Media Generation API credential/);
		expect(logged).not.toContain(backend.account.webhookSecret);
	} finally {
		warn.mockRestore();
	}
});

test('forged calls with an API credential: a run of nobody gets one read and 401; a real run not final yet, 401', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	const reads = () => backend.requests('GET /v1/generations/').length;
	let before = reads();
	const fake = JSON.stringify({ id: 'gen_nobody', kind: 'image', model: 'x', status: 'SUCCEEDED', outputs: [] });
	expect((await signed(host.url, wrong, 'msg_gen_nobody_succeeded', fake)).status).toBe(401);
	expect(reads() - before).toBe(1);
	// Not a run at all: no read.
	before = reads();
	expect((await signed(host.url, wrong, 'msg_x', JSON.stringify({ hello: 1 }))).status).toBe(401);
	expect(reads()).toBe(before);
	// A real run of the account, still going, claimed as finished: read once, refused.
	const stuck = await submit({ prompt: 'not yet [stuck]' });
	const claim = JSON.stringify({ id: stuck.id, kind: 'image', model: 'studio-image-v1', status: 'SUCCEEDED' });
	before = reads();
	expect((await signed(host.url, wrong, `msg_${stuck.id}_succeeded`, claim)).status).toBe(401);
	expect(reads() - before).toBe(1);
	expect(host.started).toHaveLength(0);
});

test('a real finished run, called in with varied webhook-ids: the workflow starts once, with the record read back', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const run = await submit({ prompt: 'claimed twice' });
	for (let i = 0; i < 50 && backend.sandbox.engine.runs.get(run.id)?.status !== 'SUCCEEDED'; i++) {
		backend.sandbox.engine.settle(backend.sandbox.engine.runs.get(run.id)!);
		await settle(50);
	}
	const wrong = newWebhookSecret();
	const claim = JSON.stringify({ id: run.id, kind: 'image', model: 'studio-image-v1', status: 'FAILED', prompt: 'x' });
	expect((await signed(host.url, wrong, 'msg_one', claim)).status).toBe(200);
	expect((await signed(host.url, wrong, 'msg_two', claim)).status).toBe(200);
	expect(host.started).toHaveLength(1);
	expect(host.started[0][0].json).toMatchObject({ id: run.id, status: 'SUCCEEDED', prompt: 'claimed twice' });
});

test('Download Outputs: the delivery is answered while a large file is still downloading', async () => {
	const secret = newWebhookSecret();
	host = await hostTrigger({ downloadOutputs: true }, { secret });
	// A file server that holds the download until the test lets it go.
	const files = await startHeldFileServer(20 * 1024 * 1024, 'video/mp4');
	try {
		const run = heldVideoRun(files, 'gen_bigfile');
		const answer = await signed(host.url, secret, 'msg_gen_bigfile_succeeded', JSON.stringify(run));
		// Answered while the file is held back: the download goes on after the answer.
		expect(answer.status).toBe(200);
		for (let i = 0; i < 100 && !files.requested(); i++) await settle(50);
		expect(files.requested()).toBe(true);
		expect(host.started).toHaveLength(0);
		files.release();
		for (let i = 0; i < 100 && !host.started.length; i++) await settle(50);
		expect(host.started).toHaveLength(1);
		expect(host.started[0][0].binary?.data?.mimeType).toBe('video/mp4');
		expect(host.started[0][0].json.downloadError).toBeUndefined();
		expect(host.started[0][0].binary?.data?.fileSize).toBe('21 MB'); // 20 MiB
	} finally {
		await files.close();
	}
});
