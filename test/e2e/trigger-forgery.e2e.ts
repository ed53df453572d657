/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (2.41.1 and 1.123.81), the trigger with an API credential attached, against the sandbox in strict mode
// (a run's own Webhook URL gets deliveries signed with a secret no credential holds, so each is read back):
// (a) a genuine per-run delivery starts exactly one execution, and a resend none;
// (b) a call with a wrong signature whose body differs from the run record starts nothing and costs at most one
//     read; one whose webhook-id is not its run's costs none;
// (c) with every read taking 12 s, the service's sender (10 s limit) sees every attempt answered, and the run
//     starts exactly one execution.
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import { newWebhookSecret } from '../../sandbox/webhooks';
import { rest, stopServer, type N8nInstance } from '../../scripts/realN8n';
import {
	SANDBOX_KEY,
	sandboxKeyCredential,
	sendSigned,
	startN8nWith,
	triggerWorkflow,
	untilMarkerRan,
	untilN8n,
	untilRegistered,
} from './shared';
import { deliveryOf } from '../helpers/world';

const WORKFLOW_ID = 'mgTriggerForgery';
const webhookId = randomUUID();
let sb: Sandbox;
let account: Account;
let n8n: N8nInstance;
let cookie = '';
let hookUrl = '';

async function executions(): Promise<Array<{ id: string; status: string }>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
	const path = `/rest/executions?filter=${filter}&limit=50`;
	return (await rest<{ data: { results: Array<{ id: string; status: string }> } }>(n8n, cookie, path)).data.results;
}

/** The executions not in `known`, once a marker sent after the test's calls has run (markers left out). */
async function newExecutions(known: Set<string>) {
	const { executions } = await untilMarkerRan(n8n, cookie, WORKFLOW_ID, hookUrl, account.webhookSecret);
	return executions.filter((e) => !known.has(e.id));
}
const knownIds = async () => new Set((await executions()).map((e) => e.id));

const isRead = (e: { method: string; path: string }) => e.method === 'GET' && e.path.startsWith('/v1/generations/');
const reads = () => sb.engine.log.filter(isRead).length;

async function submit(body: Record<string, unknown>): Promise<string> {
	const res = await fetch(`${sb.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${account.keys[0]}`, 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', options: { resolution: '1K' }, ...body }),
	});
	return ((await res.json()) as { generation: { id: string } }).generation.id;
}

/** A call to the trigger signed with a secret of the caller's own. */
const forged = (id: string, body: string): Promise<number> => sendSigned(hookUrl, newWebhookSecret(), id, body);

beforeAll(async () => {
	sb = await startSandbox({
		strict: true,
		timeScale: 0.01,
		durations: { pendingMs: 300, image: 1500, video: 6000, music: 2000 },
	});
	account = sb.engine.createAccount({ credits: 5000, concurrency: 3 });
	const secret = {
		id: 'mgForgerySecret',
		name: 'Account signing secret',
		type: 'mediaGenWebhookApi',
		data: { secret: account.webhookSecret, previousSecret: '' },
	};
	const workflow = triggerWorkflow({
		id: WORKFLOW_ID,
		name: 'Trigger forgery',
		webhookId,
		credentials: { mediaGenWebhookApi: { id: secret.id, name: secret.name }, ...SANDBOX_KEY },
		settings: { saveDataSuccessExecution: 'all' },
	});
	({ n8n, cookie } = await startN8nWith([sandboxKeyCredential(sb, account), secret], [workflow]));
	hookUrl = `http://127.0.0.1:${n8n.port}/webhook/${webhookId}/webhook`;
	await untilRegistered(n8n, hookUrl, "The trigger's webhook");
});

afterAll(async () => {
	if (n8n) await stopServer(n8n);
	await sb?.close();
});

test('(a) a genuine per-run delivery with the API credential attached starts exactly one execution', async () => {
	const known = await knownIds();
	const runId = await submit({ prompt: 'genuine per-run delivery', webhookUrl: hookUrl });
	await untilN8n(() => deliveryOf(sb, runId)?.delivered, 'the delivery');
	sb.engine.webhooks.resend(deliveryOf(sb, runId)!.id);
	await untilN8n(() => deliveryOf(sb, runId)!.attempts.length >= 2, 'the resend to be answered');
	const list = await newExecutions(known);
	expect(deliveryOf(sb, runId)!.attempts.map((a) => a.status)).toEqual([200, 200]);
	expect(list).toHaveLength(1);
	expect(list[0].status).toBe('success');
	const raw = JSON.stringify(await rest(n8n, cookie, `/rest/executions/${list[0].id}`));
	expect(raw).toContain(`msg_${runId}_succeeded`);
	console.log(
		`(a) n8n ${n8n.version}: attempts ${JSON.stringify(deliveryOf(sb, runId)!.attempts.map((a) => a.status))}`,
	);
});

test('(b) a wrong signature and a body that is not the run record: nothing starts, at most one read', async () => {
	// A finished run of the account that was never addressed to this trigger (no Webhook URL, no endpoint).
	const runId = await submit({ prompt: 'addressed elsewhere' });
	const run = sb.engine.runs.get(runId)!;
	await untilN8n(() => sb.engine.settle(run).status === 'SUCCEEDED', 'the run to finish');
	const record = sb.engine.publicRun(run);
	const known = await knownIds();
	const measured: Record<string, number> = {};
	let r = reads();
	measured.alteredStatus = await forged(`msg_${runId}_succeeded`, JSON.stringify({ ...record, prompt: 'forged' }));
	measured.alteredReads = reads() - r;
	r = reads();
	measured.wrongIdStatus = await forged(`msg_gen_other_succeeded`, JSON.stringify(record));
	measured.wrongIdReads = reads() - r;
	measured.executions = (await newExecutions(known)).length;
	console.log(`(b) n8n ${n8n.version}: ${JSON.stringify(measured)}`);
	expect(measured).toEqual({ alteredStatus: 401, alteredReads: 1, wrongIdStatus: 401, wrongIdReads: 0, executions: 0 });
});

test('(c) every read takes 12 s: each attempt is answered within 10 s and the run starts one execution', async () => {
	sb.faults.set([{ route: 'GET /generations/:id', rate: 1, kinds: ['slow'], slowMs: 12_000 }]);
	try {
		const known = await knownIds();
		const runId = await submit({ prompt: 'slow reads', webhookUrl: hookUrl });
		await untilN8n(() => deliveryOf(sb, runId)?.delivered, 'the delivery', 180_000);
		// The calls answered "still checking" go on reading after their answer: once the service has answered
		// every read, each has decided, and the marker comes after that.
		await untilN8n(() => sb.engine.log.every((e) => !isRead(e) || e.status !== 0), 'every read to be answered');
		const list = await newExecutions(known);
		const attempts = deliveryOf(sb, runId)!.attempts;
		console.log(`(c) n8n ${n8n.version}: attempts ${JSON.stringify(attempts.map((a) => a.status ?? a.error))}`);
		expect(attempts.filter((a) => a.status === null)).toEqual([]);
		expect(attempts[attempts.length - 1].status).toBe(200);
		expect(list).toHaveLength(1);
		expect(list[0].status).toBe('success');
	} finally {
		sb.faults.set([]);
	}
});
