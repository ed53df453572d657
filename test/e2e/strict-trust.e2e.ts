/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (2.40.7 and 1.123.81) against the sandbox in strict mode, where a run's own Webhook URL gets deliveries
// signed with a secret that no credential holds (the spec does not say which secret signs them):
// (a) a paused batch finishes with every file, one charge per item and one warning naming the secret to check;
// (b) the trigger fed such a delivery starts once with an API credential attached, and answers 401 without one;
// (c) a submission whose answers are lost never returns an identical run of another execution;
// (d) the trigger with Download Outputs answers a delivery of a large file before it downloads it.
import { randomUUID } from 'node:crypto';

import type { Account } from '../../sandbox/types';
import { newWebhookSecret } from '../../sandbox/webhooks';
import { importCredentials, importWorkflow, activateWorkflow } from '../../scripts/realN8n';
import {
	charged as chargedTo,
	execution,
	executions,
	generateOutput,
	keyCredential,
	knownIds,
	nextEnded,
	secretCredential,
	startBatch,
	startPauseStack,
	stopPauseStack,
	type PauseStack,
} from './pauseStack';
import { heldVideoRun, startHeldFileServer } from '../helpers/heldFileServer';
import { postSigned } from '../helpers/signing';
import { deliveryOf } from '../helpers/world';
import { triggerWorkflow, untilMarkerRan, untilN8n } from './shared';

const PAUSED = 'mgStrictPause001';
const LOST = 'mgStrictLost0001';
const WITH_KEY = 'mgStrictTrigKey1';
const WITHOUT_KEY = 'mgStrictTrigNone';
const DOWNLOADS = 'mgStrictTrigDown';
const DOWNLOAD_SECRET = newWebhookSecret();
const hookIds: Record<string, string> = {};
let stack: PauseStack;
let account: Account;

const charged = () => chargedTo(stack.sb, account);
const triggerUrl = (workflowId: string) => `http://127.0.0.1:${stack.n8n.port}/webhook/${hookIds[workflowId]}/webhook`;

function strictTriggerWorkflow(id: string, credentials: Record<string, { id: string; name: string }>, parameters = {}) {
	hookIds[id] = randomUUID();
	const name = `Strict trigger (${id})`;
	const settings = { saveDataSuccessExecution: 'all' };
	return triggerWorkflow({ id, name, webhookId: hookIds[id], credentials, parameters, settings });
}

beforeAll(async () => {
	stack = await startPauseStack(
		(sb) => [(account = sb.engine.createAccount({ credits: 5000, concurrency: 3 }))],
		([own]) => [
			{ id: PAUSED, account: own },
			{ id: LOST, account: own, kind: 'image', extra: { waitMode: 'poll', waiting: { timeoutMinutes: 0.1 } } },
		],
		{
			sandbox: { strict: true },
			beforeStart: async (n8n, _sb, [own]) => {
				await importCredentials(n8n, [
					{
						id: 'mgDownloadSecret',
						name: 'Download secret',
						type: 'mediaGenWebhookApi',
						data: { secret: DOWNLOAD_SECRET, previousSecret: '' },
					},
				]);
				const secret = { id: secretCredential(own), name: 'Sandbox signing secret' };
				const workflows = [
					strictTriggerWorkflow(WITH_KEY, {
						mediaGenWebhookApi: secret,
						mediaGenApi: { id: keyCredential(own), name: 'Sandbox key' },
					}),
					strictTriggerWorkflow(WITHOUT_KEY, { mediaGenWebhookApi: secret }),
					strictTriggerWorkflow(
						DOWNLOADS,
						{ mediaGenWebhookApi: { id: 'mgDownloadSecret', name: 'Download secret' } },
						{ downloadOutputs: true },
					),
				];
				for (const workflow of workflows) {
					await importWorkflow(n8n, workflow);
					await activateWorkflow(n8n, workflow.id);
				}
			},
		},
	);
	// The triggers' webhooks: an unsigned call is answered 400 once registered (404 before).
	for (const id of [WITH_KEY, WITHOUT_KEY, DOWNLOADS]) {
		await untilN8n(async () => {
			const res = await fetch(triggerUrl(id), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			await res.text();
			return res.status !== 404;
		}, `the trigger ${id} to be registered`);
	}
});

afterAll(() => stopPauseStack(stack));

test('(a) a paused batch signed with a secret no credential holds: every file, one charge each, one warning', async () => {
	const before = charged();
	const known = await knownIds(stack, PAUSED);
	await startBatch(stack, PAUSED, ['strict a', 'strict b', 'strict c']);
	const done = await nextEnded(stack, PAUSED, known, 180_000);
	expect(done.status).toBe('success');
	const items = await generateOutput(stack, done.id);
	expect(items.map((i) => i.json.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
	for (const item of items) expect(item.binary?.data?.mimeType).toBe('video/mp4');
	expect(charged() - before).toBe(3 * 20);
	const warnings = items.map((i) => i.json.warning).filter(Boolean);
	expect(warnings).toHaveLength(1);
	expect(String(warnings[0])).toMatch(/failed the signature check \(Signature does not match\)\. Nothing was lost/);
	// Named as n8n stores the node's credential reference.
	expect(String(warnings[0])).toMatch(
		/check the secret in the Webhook Signing Secret credential "[^"]*[Ss]igning secret"/,
	);
	console.log(
		`(a) ${items.length} items, ${charged() - before} credits, warning: ${String(warnings[0]).slice(0, 120)}…`,
	);
});

async function submit(body: Record<string, unknown>): Promise<string> {
	const res = await fetch(`${stack.sb.baseUrl}/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${account.keys[0]}`, 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', options: { resolution: '1K' }, ...body }),
	});
	return ((await res.json()) as { generation: { id: string } }).generation.id;
}

test('(b) a per-run delivery signed with another secret: one execution with the API credential, 401 without', async () => {
	const withKey = await submit({ prompt: 'strict trigger with key', webhookUrl: triggerUrl(WITH_KEY) });
	const withoutKey = await submit({ prompt: 'strict trigger without key', webhookUrl: triggerUrl(WITHOUT_KEY) });
	await untilN8n(
		() => !!deliveryOf(stack.sb, withKey)?.attempts.length && !!deliveryOf(stack.sb, withoutKey)?.attempts.length,
		'both deliveries to be tried',
	);
	expect(deliveryOf(stack.sb, withKey)!.attempts[0].status).toBe(200);
	expect(deliveryOf(stack.sb, withoutKey)!.attempts[0].status).toBe(401);
	// The service resends the accepted one: still one execution.
	stack.sb.engine.webhooks.resend(deliveryOf(stack.sb, withKey)!.id);
	await untilN8n(() => deliveryOf(stack.sb, withKey)!.attempts.length >= 2, 'the resend to be answered');
	// A marker sent after the resend's answer: once its execution has run, a second one the resend wrongly
	// started would be listed too.
	const marked = await untilMarkerRan(stack.n8n, stack.cookie, WITH_KEY, triggerUrl(WITH_KEY), account.webhookSecret);
	const started = marked.executions;
	expect(started.map((e) => e.status)).toEqual(['success']);
	const raw = (await execution(stack, started[0].id)).raw;
	expect(raw).toContain(`msg_${withKey}_succeeded`);
	expect(await executions(stack, WITHOUT_KEY)).toHaveLength(0);
	expect(stack.n8n.log.join('')).toMatch(/refused a delivery \(Signature does not match\)\. It was not signed with/);
});

test('(c) answers lost until the time limit while an identical run of another execution exists: never returned', async () => {
	// Another execution of the same workflow made the same request a moment ago.
	let known = await knownIds(stack, LOST);
	await startBatch(stack, LOST, ['strict twin']);
	const first = await nextEnded(stack, LOST, known);
	expect(first.status).toBe('success');
	const twin = String((await generateOutput(stack, first.id))[0].json.id);
	expect(twin).toMatch(/^gen_/);
	const before = charged();
	stack.sb.faults.set([{ route: 'POST /generations', rate: 1, kinds: ['drop_after'] }]);
	try {
		known = await knownIds(stack, LOST);
		await startBatch(stack, LOST, ['strict twin']);
		const second = await nextEnded(stack, LOST, known);
		expect(second.status).toBe('error');
		const raw = (await execution(stack, second.id)).raw;
		expect(raw).not.toContain(twin);
		expect(raw).toContain('within its time limit: the run may have started and been charged');
		expect(raw).toMatch(/Its request key is [^ ]+\. To get that run without paying again/);
	} finally {
		stack.sb.faults.set([]);
	}
	const own = [...stack.sb.engine.runs.values()].filter((r) => r.prompt === 'strict twin' && r.id !== twin);
	expect(own).toHaveLength(1);
	expect(charged() - before).toBe(5);
});

test('(d) Download Outputs: the delivery of a large file is answered before the file is downloaded', async () => {
	const files = await startHeldFileServer(20 * 1024 * 1024, 'video/mp4');
	try {
		const run = heldVideoRun(files, 'gen_strictbig');
		const body = JSON.stringify(run);
		const answer = await postSigned(triggerUrl(DOWNLOADS), DOWNLOAD_SECRET, 'msg_gen_strictbig_succeeded', body);
		// Answered while the file is held back by its server.
		expect(answer.status).toBe(200);
		await untilN8n(() => files.requested(), 'the download to begin');
		expect(await executions(stack, DOWNLOADS)).toHaveLength(0);
		files.release();
		const done = await untilN8n(async () => {
			const e = (await executions(stack, DOWNLOADS))[0];
			return e && e.status !== 'running' && e.status !== 'new' ? e : undefined;
		}, 'the execution');
		expect(done.status).toBe('success');
		const raw = (await execution(stack, done.id)).raw;
		expect(raw).toContain('video/mp4');
		expect(raw).not.toContain('downloadError');
	} finally {
		await files.close();
	}
});
