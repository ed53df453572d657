/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The trigger does not depend on which secret signs a run's own Webhook URL (the spec does not say): with an API
// credential attached, a delivery that fails the signature check is read back from the service and starts the
// workflow once when its run is real and final; without one it is refused (401) and n8n's log names the secret
// it expected. With Download Outputs on, the delivery is answered before the files are downloaded.
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import { newWebhookSecret } from '../../sandbox/webhooks';
import { heldVideoRun, startHeldFileServer } from '../helpers/heldFileServer';
import { runEnded, startBackend, type TestBackend } from '../helpers/sandbox';
import { postSigned } from '../helpers/signing';
import { until } from '../helpers/until';
import { hostTrigger, type WebhookHost } from '../helpers/webhookHost';
import { deliveryOf } from '../helpers/world';

let backend: TestBackend;
let host: WebhookHost | undefined;

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

const delivered = (runId: string) =>
	until(() => !!deliveryOf(backend.sandbox, runId)?.attempts.length, `the delivery of ${runId}`);

test('a per-run delivery signed with another secret starts the workflow once when an API credential is attached', async () => {
	host = await hostTrigger({}, { secret: backend.account.webhookSecret }, 0, { apiCredentials: api() });
	const run = await submit({ prompt: 'read me back', webhookUrl: host.url });
	await delivered(run.id);
	const delivery = deliveryOf(backend.sandbox, run.id)!;
	expect(delivery.attempts[0].status).toBe(200);
	// Resent by the service twice more: still one execution.
	backend.sandbox.engine.webhooks.resend(delivery.id);
	backend.sandbox.engine.webhooks.resend(delivery.id);
	await until(() => delivery.attempts.length >= 3, 'both resends answered');
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
		expect(deliveryOf(backend.sandbox, run.id)!.attempts[0].status).toBe(401);
		expect(host.started).toHaveLength(0);
		const logged = JSON.stringify(warn.mock.calls);
		expect(logged).toMatch(/refused a delivery \(Signature does not match\)/);
		expect(logged).toContain(
			'not signed with the secret in the Webhook Signing Secret credential \\"Webhook secret\\"',
		);
		expect(logged).toMatch(/Turn on Check Unverified Deliveries in the trigger and pick a Media Generation API/);
		expect(logged).not.toContain(backend.account.webhookSecret);
	} finally {
		warn.mockRestore();
	}
});

test('a new trigger (1.1) reads back only with Check Unverified Deliveries on, whatever the API Key box holds', async () => {
	const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => undefined);
	try {
		const secret = { secret: backend.account.webhookSecret };
		host = await hostTrigger({}, secret, 0, { apiCredentials: api(), typeVersion: 1.1 });
		const off = await submit({ prompt: 'box left filled, check off', webhookUrl: host.url });
		await delivered(off.id);
		expect(deliveryOf(backend.sandbox, off.id)!.attempts[0].status).toBe(401);
		expect(host.started).toHaveLength(0);
		expect(backend.requests('GET /v1/generations/')).toHaveLength(0);
		await host.close();
		host = await hostTrigger({ readBack: true }, secret, 0, { apiCredentials: api(), typeVersion: 1.1 });
		const on = await submit({ prompt: 'check on', webhookUrl: host.url });
		await delivered(on.id);
		expect(deliveryOf(backend.sandbox, on.id)!.attempts[0].status).toBe(200);
		expect(host.started.map((items) => items[0].json.id)).toEqual([on.id]);
		expect(backend.charges()).toBe(10);
	} finally {
		warn.mockRestore();
	}
});

/** A run of the account, finished (its prompt picks the outcome: "[fail]" fails), as the service records it. */
async function finishedRun(prompt: string): Promise<Record<string, unknown>> {
	const { id } = await submit({ prompt });
	await runEnded(backend.sandbox, id);
	return backend.sandbox.engine.publicRun(backend.sandbox.engine.runs.get(id)!);
}

const reads = () => backend.requests('GET /v1/generations/').length;
const outcomeOf = (run: Record<string, unknown>) => (run.status === 'SUCCEEDED' ? 'succeeded' : 'failed');

test('forged calls with an API credential: a run of nobody gets one read and 401; a real run not final yet, 401', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	let before = reads();
	const nobody = { ...(await finishedRun('template')), id: 'gen_nobody' };
	expect((await postSigned(host.url, wrong, 'msg_gen_nobody_succeeded', JSON.stringify(nobody))).status).toBe(401);
	expect(reads() - before).toBe(1);
	// Not a run at all: no read.
	before = reads();
	expect((await postSigned(host.url, wrong, 'msg_x', JSON.stringify({ hello: 1 }))).status).toBe(401);
	expect(reads()).toBe(before);
	// A real run of the account, still going, claimed as finished: read once, refused.
	const stuck = await submit({ prompt: 'not yet [stuck]' });
	const claim = {
		...backend.sandbox.engine.publicRun(backend.sandbox.engine.runs.get(stuck.id)!),
		status: 'SUCCEEDED',
	};
	before = reads();
	expect((await postSigned(host.url, wrong, `msg_${stuck.id}_succeeded`, JSON.stringify(claim))).status).toBe(401);
	expect(reads() - before).toBe(1);
	expect(host.started).toHaveLength(0);
});

test('a body that differs from the run record in any field is refused after one read and starts nothing', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	const run = await finishedRun('the real prompt');
	const msg = `msg_${run.id}_succeeded`;
	const variants = [
		{ ...run, prompt: 'a prompt of my own' },
		{ ...run, cost: 0 },
		{ ...run, outputs: [] },
		{ ...run, options: { ...(run.options as object), resolution: '4K' } },
		{ ...run, refunded: 5 }, // only a failed run's body carries refunded
		{ ...run, extra: 'anything' },
		Object.fromEntries(Object.entries(run).filter(([k]) => k !== 'error')), // a field left out
	];
	for (const body of variants) {
		const before = reads();
		const answer = await postSigned(host.url, wrong, msg, JSON.stringify(body));
		expect(answer.status).toBe(401);
		expect(reads() - before).toBeLessThanOrEqual(1);
	}
	expect(host.started).toHaveLength(0);
});

test("a webhook-id not the body's, a status never delivered, a run past the memory: no read", async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	const run = await finishedRun('whose delivery is this');
	const { engine } = backend.sandbox;
	const before = reads();
	const body = JSON.stringify(run);
	// Another run's id, the other outcome, no msg_ shape at all.
	expect((await postSigned(host.url, wrong, 'msg_gen_other_succeeded', body)).status).toBe(401);
	expect((await postSigned(host.url, wrong, `msg_${run.id}_failed`, body)).status).toBe(401);
	expect((await postSigned(host.url, wrong, 'anything', body)).status).toBe(401);
	// The service delivers succeeded and failed runs only.
	const canceled = JSON.stringify({ ...run, status: 'CANCELED' });
	expect((await postSigned(host.url, wrong, `msg_${run.id}_canceled`, canceled)).status).toBe(401);
	// The same genuine body, 49 hours after the run began: past what the de-duplication memory covers.
	const old = await finishedRun('an old run');
	engine.runs.get(old.id as string)!.createdAt -= 49 * 3600_000;
	const replay = JSON.stringify(engine.publicRun(engine.runs.get(old.id as string)!));
	expect((await postSigned(host.url, wrong, `msg_${old.id}_succeeded`, replay)).status).toBe(401);
	expect(reads()).toBe(before);
	expect(host.started).toHaveLength(0);
});

test('a run the service reports as CANCELED is never taken, nor labelled failed', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	const run = await finishedRun('canceled later');
	backend.sandbox.engine.runs.get(run.id as string)!.status = 'CANCELED';
	expect((await postSigned(host.url, wrong, `msg_${run.id}_succeeded`, JSON.stringify(run))).status).toBe(401);
	expect((await postSigned(host.url, wrong, `msg_${run.id}_failed`, JSON.stringify(run))).status).toBe(401);
	expect(host.started).toHaveLength(0);
});

test('the exact body of a finished run, called in twice: one read, one start, with the record', async () => {
	host = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api() });
	const wrong = newWebhookSecret();
	const ok = await finishedRun('claimed twice');
	const failed: Record<string, unknown> = { ...(await finishedRun('refunded [fail]')), refunded: 5 };
	for (const run of [ok, failed]) {
		// Keys in another order, as another serialiser would write them: the same JSON value.
		const reordered = Object.fromEntries(Object.entries(run).reverse());
		const msg = `msg_${run.id}_${outcomeOf(run)}`;
		const before = reads();
		expect((await postSigned(host.url, wrong, msg, JSON.stringify(reordered))).status).toBe(200);
		expect((await postSigned(host.url, wrong, msg, JSON.stringify(run))).status).toBe(200);
		expect(reads() - before).toBeLessThanOrEqual(1);
	}
	expect(host.started).toHaveLength(2);
	// The record read back has no `refunded`: the started item carries the delivered one beside the record.
	const failedRecord = Object.fromEntries(Object.entries(failed).filter(([k]) => k !== 'refunded'));
	// Beside createdAt (milliseconds), the item has createdDate, the same as a readable date.
	const dated = (record: Record<string, unknown>) => ({
		createdDate: new Date(Number(record.createdAt)).toISOString(),
	});
	expect(host.started[0][0].json).toEqual({
		...ok,
		...dated(ok),
		outcome: 'succeeded',
		webhookId: `msg_${ok.id}_succeeded`,
	});
	expect(host.started[1][0].json).toEqual({
		...failedRecord,
		...dated(failed),
		outcome: 'failed',
		refunded: 5,
		webhookId: `msg_${failed.id}_failed`,
	});
});

test('Download Outputs: the delivery is answered while a large file is still downloading', async () => {
	const secret = newWebhookSecret();
	host = await hostTrigger({ downloadOutputs: true }, { secret });
	// A file server that holds the download until the test lets it go.
	const files = await startHeldFileServer(20 * 1024 * 1024, 'video/mp4');
	try {
		const run = heldVideoRun(files, 'gen_bigfile');
		const answer = await postSigned(host.url, secret, 'msg_gen_bigfile_succeeded', JSON.stringify(run));
		// Answered while the file is held back: the download goes on after the answer.
		expect(answer.status).toBe(200);
		await until(() => files.requested(), 'the download to start');
		expect(files.requested()).toBe(true);
		expect(host.started).toHaveLength(0);
		files.release();
		await until(() => host!.started.length > 0, 'the workflow to start');
		expect(host.started).toHaveLength(1);
		expect(host.started[0][0].binary?.data?.mimeType).toBe('video/mp4');
		expect(host.started[0][0].json.downloadError).toBeUndefined();
		expect(host.started[0][0].binary?.data?.fileSize).toBe('21 MB'); // 20 MiB
	} finally {
		await files.close();
	}
});
