// The service counts a delivery not answered 2xx within 10 s as failed and sends it again. With every
// GET /generations/{id} taking 12 s, the trigger still answers each delivery in time (the sandbox's sender gives
// up after 10 s and records a time-out): a signed delivery needs no read; one that fails the signature check is
// answered 503 while its read goes on, starts the workflow when the read confirms it, and the service's retry is
// then acknowledged as a repeat. Nothing is lost: exactly one execution per run, with the record read back.
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { hostTrigger, type WebhookHost } from '../helpers/webhookHost';
import { until } from '../helpers/until';
import { deliveryOf } from '../helpers/world';

const SLOW_READS = [{ route: 'GET /generations/:id', rate: 1, kinds: ['slow' as const], slowMs: 12_000 }];

let backend: TestBackend;
let host: WebhookHost | undefined;

afterEach(async () => {
	await host?.close();
	host = undefined;
	await backend.sandbox.close();
});

async function submit(body: Record<string, unknown>): Promise<string> {
	const res = await fetch(`${backend.sandbox.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${backend.account.keys[0]}`, 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', options: { resolution: '1K' }, ...body }),
	});
	return ((await res.json()) as { generation: { id: string } }).generation.id;
}

/** Waits until the delivery is acknowledged or an attempt timed out, and every webhook() call has returned. */
async function deliveredOrLate(runId: string): Promise<void> {
	await until(
		() => {
			const d = deliveryOf(backend.sandbox, runId);
			const done = d && (d.delivered || d.attempts.some((a) => a.status === null));
			return !!done && host!.responses.length >= d.attempts.length;
		},
		'the delivery to be acknowledged or timed out',
		60_000,
	);
}

test('reads take 12 s: an unsigned delivery is answered in time and starts one execution', async () => {
	backend = await startBackend({ strict: true, timeScale: 0.0005, faults: SLOW_READS });
	const api = { baseUrl: backend.sandbox.baseUrl, apiKey: backend.account.keys[0] };
	host = await hostTrigger({}, { secret: backend.account.webhookSecret }, 0, { apiCredentials: api });
	const runId = await submit({ prompt: 'slow service', webhookUrl: host.url });
	await deliveredOrLate(runId);
	const delivery = deliveryOf(backend.sandbox, runId)!;
	expect(delivery.attempts.map((a) => a.error)).not.toContain('timeout');
	expect(delivery.attempts.every((a) => a.status !== null)).toBe(true);
	expect(delivery.delivered).toBe(true);
	// Answered 503 while the read was under way, then acknowledged as a repeat once the read confirmed the run.
	expect(delivery.attempts[0].status).toBe(503);
	expect(delivery.attempts[0].answer).toContain('retry');
	expect(host.started).toHaveLength(1);
	const record = backend.sandbox.engine.publicRun(backend.sandbox.engine.runs.get(runId)!);
	expect(host.started[0][0].json).toEqual({
		...record,
		createdDate: new Date(Number(record.createdAt)).toISOString(),
		outcome: 'succeeded',
		webhookId: `msg_${runId}_succeeded`,
	});
	// A resend from the account settings now: acknowledged at once, no read, no second execution.
	const reads = backend.requests('GET /v1/generations/').length;
	const attempts = delivery.attempts.length;
	backend.sandbox.engine.webhooks.resend(delivery.id);
	await until(
		() => delivery.attempts.length > attempts && host!.responses.length > attempts,
		'the resend to be answered',
		12_000,
	);
	expect(delivery.attempts[delivery.attempts.length - 1].status).toBe(200);
	expect(backend.requests('GET /v1/generations/').length).toBe(reads);
	expect(host.started).toHaveLength(1);
	expect(backend.charges()).toBe(5);
}, 60_000);

test('reads take 12 s: a signed delivery with Download Outputs is answered at once, starts once', async () => {
	backend = await startBackend({ timeScale: 0.0005, faults: SLOW_READS });
	host = await hostTrigger({ downloadOutputs: true }, { secret: backend.account.webhookSecret });
	const runId = await submit({ prompt: 'slow service, signed', webhookUrl: host.url });
	await deliveredOrLate(runId);
	const delivery = deliveryOf(backend.sandbox, runId)!;
	expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
	await until(() => host!.started.length > 0, 'an execution to start', 4_000);
	expect(host.started).toHaveLength(1);
	expect(host.started[0][0].binary?.data).toBeDefined();
	expect(backend.charges()).toBe(5);
}, 60_000);
