/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (2.40.7 and 1.123.81): the trigger refuses a delivery signed under an empty key when the credential's
// Previous Signing Secret is " ", and a replayed webhook-id starts nothing after 30 sequential and
// 100 concurrent deliveries, an n8n restart, and a deactivate/activate. Prints the measured numbers.
import { randomUUID } from 'node:crypto';

import { newWebhookSecret } from '../../sandbox/webhooks';
import {
	importWorkflow,
	ownerSession,
	rest,
	restartServer,
	setWorkflowActive,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import type { SigningKey } from '../helpers/signing';
import {
	markerCount,
	sendSigned,
	startN8nWith,
	TRIGGER,
	triggerWorkflow,
	untilMarkerRan,
	untilN8n,
	untilRegistered,
} from './shared';

// 16 characters, like the ids n8n gives: n8n 1.x saves static data only for ids of at most 16
// (isWorkflowIdValid in cli/src/utils.ts); the 17-character id used before made every save a no-op there.
const WORKFLOW_ID = 'mgTriggerDurable';
const WORKFLOW_PATH = `/rest/workflows/${WORKFLOW_ID}`;
const UNKEYED_ID = 'mgTriggerUnkeyed';
const SECRET = newWebhookSecret();
const webhookId = randomUUID();
let n8n: N8nInstance;
let cookie = '';
let hookUrl = '';

const runBody = (n: number) =>
	JSON.stringify({ id: `gen_e2e${n}`, kind: 'image', model: 'studio-image-v1', status: 'SUCCEEDED', outputs: [] });
const msgId = (n: number) => `msg_gen_e2e${n}_succeeded`;

/** One signed delivery, timestamped now (a retry or resend is signed afresh with the same webhook-id). */
const deliver = (n: number, key: SigningKey = SECRET): Promise<number> =>
	sendSigned(hookUrl, key, msgId(n), runBody(n));

/** Delivers `ns` with at most `width` requests in flight. */
async function deliverAll(ns: number[], width: number): Promise<number[]> {
	const statuses: number[] = [];
	let next = 0;
	const worker = async () => {
		while (next < ns.length) {
			const i = next++;
			statuses[i] = await deliver(ns[i]);
		}
	};
	await Promise.all(Array.from({ length: width }, worker));
	return statuses;
}

/**
 * n8n 2.40 activates published workflows after its banner (publication service): wait for the webhook. Its probe
 * is unsigned: the trigger answers 400 and starts nothing; 404 means not registered yet.
 */
const webhookReady = () => untilRegistered(n8n, hookUrl, "The trigger's webhook");

async function executionCount(): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
	const res = await rest<{ data: { count: number } }>(n8n, cookie, `/rest/executions?filter=${filter}&limit=1`);
	return res.data.count;
}

/** The executions the deliveries started, once a marker sent after they were all answered has run (markers left out). */
const settledCount = async () => (await untilMarkerRan(n8n, cookie, WORKFLOW_ID, hookUrl, SECRET)).count;

/** The executions the deliveries started, as n8n counts them now (markers left out). */
const deliveryExecutions = async () => (await executionCount()) - markerCount(n8n, WORKFLOW_ID);

async function storedIds(): Promise<number> {
	type Stored = Record<string, { seenWebhookIds?: object }>;
	const wf = await rest<{ data: { staticData?: Stored | string | null } }>(n8n, cookie, WORKFLOW_PATH);
	const raw = wf.data.staticData;
	const data = typeof raw === 'string' ? (JSON.parse(raw) as Stored) : raw;
	// The deliveries' ids only (the markers' are remembered too).
	return Object.keys(data?.[`node:${TRIGGER}`]?.seenWebhookIds ?? {}).filter((id) => id.startsWith('msg_gen_e2e'))
		.length;
}

const unexpected: number[] = [];
/** How many answers were not 2xx (kept for the printed summary). */
const not2xx = (statuses: number[]) => {
	const bad = statuses.filter((s) => s < 200 || s > 299);
	unexpected.push(...bad);
	return bad.length;
};

beforeAll(async () => {
	// The optional field left holding a space: it must count as absent, never as an empty key.
	const secret = {
		id: 'mgDurableSecret',
		name: 'Durable trigger secret',
		type: 'mediaGenWebhookApi',
		data: { secret: SECRET, previousSecret: ' ' },
	};
	const workflow = triggerWorkflow({
		id: WORKFLOW_ID,
		name: 'Trigger durability',
		webhookId,
		credentials: { mediaGenWebhookApi: { id: 'mgDurableSecret', name: 'Durable trigger secret' } },
	});
	// A new trigger (1.1) with Check Unverified Deliveries on and no API key, saved but not published.
	const unkeyed = triggerWorkflow({
		id: UNKEYED_ID,
		name: 'Trigger checking unverified deliveries without a key',
		webhookId: randomUUID(),
		credentials: { mediaGenWebhookApi: { id: 'mgDurableSecret', name: 'Durable trigger secret' } },
		parameters: { readBack: true },
		typeVersion: 1.1,
	});
	({ n8n, cookie } = await startN8nWith([secret], [workflow], (n) => importWorkflow(n, unkeyed)));
	hookUrl = `http://127.0.0.1:${n8n.port}/webhook/${webhookId}/webhook`;
	await webhookReady();
});

afterAll(async () => {
	if (n8n) await stopServer(n8n);
});

test('blank previous secret: no forgery; 130 deliveries, restart, re-activation: replays start nothing', async () => {
	const measured: Record<string, number> = {};
	measured.emptyKeyStatus = await deliver(999, Buffer.alloc(0));
	measured.emptyKeyExecutions = await settledCount();

	measured.sequentialNot2xx = not2xx(
		await deliverAll(
			Array.from({ length: 30 }, (_, n) => n),
			1,
		),
	);
	measured.concurrentNot2xx = not2xx(
		await deliverAll(
			Array.from({ length: 100 }, (_, n) => 30 + n),
			20,
		),
	);
	measured.executions = (await settledCount()) - measured.emptyKeyExecutions;
	measured.storedIds = await storedIds();

	await restartServer(n8n);
	cookie = await ownerSession(n8n);
	await webhookReady();
	measured.storedIdsAfterRestart = await storedIds();
	const before = await deliveryExecutions();
	measured.replayAfterRestartNot2xx = not2xx(
		await deliverAll(
			Array.from({ length: 130 }, (_, n) => n),
			20,
		),
	);
	measured.newExecutionsAfterRestart = (await settledCount()) - before;

	await setWorkflowActive(n8n, cookie, WORKFLOW_ID, false);
	await setWorkflowActive(n8n, cookie, WORKFLOW_ID, true);
	await webhookReady();
	measured.storedIdsAfterReactivation = await storedIds();
	const beforeReplay = await deliveryExecutions();
	measured.replayAfterReactivationNot2xx = not2xx(
		await deliverAll(
			Array.from({ length: 130 }, (_, n) => n),
			20,
		),
	);
	measured.newExecutionsAfterReactivation = (await settledCount()) - beforeReplay;
	measured.storedIdsAtEnd = await storedIds();

	const summary = `measured: ${JSON.stringify(measured)}; other answers: ${JSON.stringify(unexpected)}`;
	process.stdout.write(`trigger durability on n8n ${n8n.version}, ${summary}\n`);
	expect(measured).toEqual({
		emptyKeyStatus: 401,
		emptyKeyExecutions: 0,
		sequentialNot2xx: 0,
		concurrentNot2xx: 0,
		executions: 130,
		storedIds: 130,
		storedIdsAfterRestart: 130,
		replayAfterRestartNot2xx: 0,
		newExecutionsAfterRestart: 0,
		storedIdsAfterReactivation: 130,
		replayAfterReactivationNot2xx: 0,
		newExecutionsAfterReactivation: 0,
		storedIdsAtEnd: 130,
	});
});

test('publishing: a version 1 trigger without an API key is published (above); a 1.1 one checking unverified deliveries needs one', async () => {
	// n8n 1.x refuses the switch to Active; 2.x publishes, then activates the triggers apart and keeps each one's
	// refusal in the workflow's publication status (the editor shows it in a toast).
	type Status = { status: string; triggers: Array<{ errorMessage: string | null }> };
	const refused = await setWorkflowActive(n8n, cookie, UNKEYED_ID, true)
		.then(() => undefined)
		.catch((error: Error) => error.message);
	const status = `/rest/workflows/${UNKEYED_ID}/publication-status`;
	const said =
		refused ??
		(await untilN8n(async () => {
			const { data } = await rest<{ data: Status }>(n8n, cookie, status);
			return data.status === 'failed' && data.triggers.map((t) => t.errorMessage).join('\n');
		}, 'the publication status of the 1.1 trigger without an API key'));
	expect(said).toContain('Check Unverified Deliveries is on, but the API Key box is empty');
});
