/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Pause mode's money rules under faults (issue 41, points 4, 5, 8, 9 and the CANCELED label): the cap is kept on
// what the plan really charges, a submission whose answer is lost is never called uncharged, resume calls answer
// within the service's 10 s whatever its speed, and an anonymous ID is told what it can do. Every test checks the
// sandbox's ledger.
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { runNode, type RunResult } from '../helpers/engine';
import { runCharges } from '../helpers/ledger';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import type { TestBackend } from '../helpers/sandbox';
import { postSigned } from '../helpers/signing';
import type { WaitingHost } from '../helpers/waitingHost';
import { ownAccount, runsOf } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
usePauseStack((b, h) => ([backend, host] = [b, h]));

type Creds = Record<string, IDataObject>;

const prompts = (count: number, word: string) =>
	Array.from({ length: count }, (_, i) => ({ json: { prompt: `${word} ${i + 1}` } }));

async function pause(creds: Creds, items: INodeExecutionData[], params: IDataObject = {}, continueOnFail = false) {
	const result = await runNode({
		parameters: { ...pauseParameters(params) },
		items,
		credentials: creds as Record<string, ICredentialDataDecryptedObject>,
		webhookWaitingBaseUrl: host.baseUrl,
		nodeOverrides: { continueOnFail },
	});
	expect(result.error).toBeUndefined();
	expect(result.run.status).toBe('waiting');
	host.hold(result, creds);
	return result;
}

const runWithKey = (ownerId: string, key: unknown) =>
	runsOf(backend.sandbox, ownerId).find((r) => r.requestKey === key);

/** Every request key charged at most once; "nothing was charged" only on items whose key made no run. */
function expectLedgerAgrees(ownerId: string, items: INodeExecutionData[]): void {
	for (const run of runsOf(backend.sandbox, ownerId)) expect(runCharges(backend.sandbox, run.id)).toHaveLength(1);
	const keys = runsOf(backend.sandbox, ownerId).map((r) => r.requestKey);
	expect(new Set(keys).size).toBe(keys.length);
	for (const item of items) {
		const words = [item.json.error, item.json.description, item.json.note].map((w) => String(w ?? '')).join(' ');
		if (/nothing was charged/i.test(words)) expect(runWithKey(ownerId, item.json.requestKey)).toBeUndefined();
	}
}

test('point 4: ten 20-credit items, cap 200, a plan charging 1.5×: the cap holds on real costs', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000, priceFactor: 1.5 });
	const paused = await pause(
		creds,
		prompts(10, 'portrait'),
		{ model: 'orchid-portrait', additionalFields: { maxCredits: 200 } },
		true,
	);
	const resumed = await host.resumed(paused.executionId);
	expect(resumed.error).toBeUndefined();
	// Every run cost 30 (round(20 × 1.5)): six fit under 200, the seventh would pass it.
	for (const run of runsOf(backend.sandbox, own.id)) expect(run.cost).toBe(30);
	expect(backend.charges(own.id)).toBeLessThanOrEqual(200);
	expect(backend.charges(own.id)).toBe(180);
	const sent = resumed.items.filter((i) => i.json.status === 'SUCCEEDED');
	const refused = resumed.items.filter((i) => i.json.error);
	expect(sent).toHaveLength(6);
	expect(refused).toHaveLength(4);
	for (const item of refused) {
		expect(item.json.error).toMatch(/^Max Credits per Execution \(200\) reached: this run would cost 30 credits/);
		expect(item.json.description).toMatch(/nothing was charged for it/);
		expect(item.json.description).toContain(
			'Your plan charged 180 credits for the 6 runs this step sent, predicted at 120 (catalogue or earlier ' +
				"prices), so this item's predicted 20 credits count as 30.",
		);
		expect(item.json.requestKey).toEqual(expect.any(String));
	}
	expectLedgerAgrees(own.id, resumed.items);
});

test('issue 42 point 9: items the cap refuses before the pause are a hint above the waiting step', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
	const paused = await pause(
		creds,
		prompts(4, 'portrait'),
		{ model: 'orchid-portrait', additionalFields: { maxCredits: 40 } },
		true,
	);
	// 20 credits each at the catalogue price: two fit under 40, items 3 and 4 are refused before anything is sent.
	expect(paused.run.data.resultData.runData[paused.node.name][0].hints).toEqual([
		{
			message:
				'Max Credits per Execution refused items 3 and 4: not submitted, so nothing was charged for them. Raise ' +
				'the cap or split the batch.',
			type: 'warning',
			location: 'outputPane',
		},
	]);
	const resumed = await host.resumed(paused.executionId);
	expect(resumed.items.map((i) => i.json.status ?? String(i.json.error).split(' (')[0])).toEqual([
		'SUCCEEDED',
		'SUCCEEDED',
		'Max Credits per Execution',
		'Max Credits per Execution',
	]);
	expect(backend.charges(own.id)).toBe(40);
});

test('point 5: submission answers lost until the time limit: the item may have been charged, and says so', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	// The first submission (before the pause) answers; every later one is handled and its answer lost.
	const lost = Array.from({ length: 60 }, () => 'drop_after' as const);
	backend.sandbox.faults.set([{ route: 'POST /generations', script: ['ok', ...lost] }]);
	const paused = await pause(creds, prompts(2, 'lost answer'), { waiting: { timeoutMinutes: 3 / 60 } }, true);
	const resumed = await host.resumed(paused.executionId);
	expect(resumed.error).toBeUndefined();
	const [first, second] = resumed.items;
	expect(first.json.status).toBe('SUCCEEDED');
	// The service made and charged the second item's run, once, though no answer ever reached the node.
	const made = runWithKey(own.id, second.json.requestKey);
	expect(made).toBeDefined();
	expect(runCharges(backend.sandbox, made!.id)).toEqual([5]);
	expect(backend.charges(own.id)).toBe(10);
	expect(second.json).toMatchObject({ status: 'UNCONFIRMED', timedOut: true, requestKey: made!.requestKey });
	expect(String(second.json.note)).toMatch(/may have been made and charged/);
	expect(String(second.json.note)).not.toMatch(/nothing was charged/i);
	expectLedgerAgrees(own.id, resumed.items);
});

test('point 8: every read taking 12 s, resume calls still answer within 10 s and nothing is lost', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000, concurrency: 1 });
	backend.sandbox.faults.set([
		{ route: 'POST /generations', rate: 1, kinds: ['slow'], slowMs: 12_000 },
		{ route: 'GET /generations/:id', rate: 1, kinds: ['slow'], slowMs: 12_000 },
	]);
	const paused = await pause(creds, prompts(2, 'slow service'));
	const resumed = await host.resumed(paused.executionId, 80_000);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items.map((i) => i.json.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
	expect(runsOf(backend.sandbox, own.id)).toHaveLength(2);
	expect(backend.charges(own.id)).toBe(10);
	expectLedgerAgrees(own.id, resumed.items);
	// The service's own verdict, its sender's 10 s limit the judge (no stopwatch here): no delivery to this
	// execution timed out or was refused.
	const deliveries = backend.sandbox.engine.webhooks.deliveries.filter((d) =>
		d.url.includes(`/${paused.executionId}?`),
	);
	expect(deliveries).toHaveLength(2);
	for (const d of deliveries) for (const attempt of d.attempts) expect(attempt).toMatchObject({ status: 200 });
	const answered = host.answers.filter((a) => a.executionId === paused.executionId).map((a) => a.ms);
	console.log(`pause calls with 12 s reads answered after ${answered.map((ms) => Math.round(ms)).join(', ')} ms`);
}, 120_000);

test('point 8: a call read back while every read takes 12 s is answered within 10 s; nothing is lost', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
	// The credential holds another secret than the one signing the deliveries: each is read back.
	creds.mediaGenWebhookApi = { secret: `whsec_${Buffer.alloc(24, 9).toString('base64')}` };
	backend.sandbox.faults.set([{ route: 'GET /generations/:id', rate: 1, kinds: ['slow'], slowMs: 12_000 }]);
	const paused = await pause(creds, prompts(1, 'slow read-back'));
	const resumed = await host.resumed(paused.executionId, 80_000);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items[0].json.status).toBe('SUCCEEDED');
	expect(String(resumed.items[0].json.warning)).toMatch(/Nothing was lost/);
	expect(runsOf(backend.sandbox, own.id)).toHaveLength(1);
	expect(backend.charges(own.id)).toBe(5);
	expectLedgerAgrees(own.id, resumed.items);
	const delivery = backend.sandbox.engine.webhooks.deliveries.find((d) => d.url.includes(`/${paused.executionId}?`))!;
	// Answered "deliver again" while the read went on, never left to time out: the service's sender, which waits
	// 10 s for an answer, is the judge (no stopwatch here).
	for (const attempt of delivery.attempts) expect(attempt).toMatchObject({ status: expect.any(Number) });
	expect(delivery.delivered).toBe(true);
	const answered = host.answers.filter((a) => a.executionId === paused.executionId);
	console.log(`read-back calls with 12 s reads: ${answered.map((a) => `${a.status} after ${Math.round(a.ms)} ms`)}`);
	console.log(
		`reads of the run: ${backend.requests(`GET /v1/generations/${runsOf(backend.sandbox, own.id)[0].id}`).length}`,
	);
}, 120_000);

describe('point 9: an anonymous ID is told what it can do', () => {
	const anonymous = (secret?: string): Creds => ({
		...backend.anonCredentials(),
		...(secret ? { mediaGenWebhookApi: { secret } } : {}),
	});
	const anonParams = { authentication: 'anonymous' };

	test("the editor's pause notice for an anonymous ID names what it can do", () => {
		const properties = new MediaGen().description.properties;
		const notice = properties.find((p) => p.name === 'pauseNoticeAnonymous')!;
		expect(notice.displayOptions?.show).toMatchObject({ waitMode: ['pause'], authentication: ['anonymous'] });
		expect(notice.displayName).toMatch(/anonymous ID has no account settings.*Choose Poll.*use an API key/);
		const general = properties.find((p) => p.name === 'pauseNotice')!;
		expect(general.displayOptions?.show).toMatchObject({ authentication: ['apiKey'] });
	});

	test('pause set-up without a usable signing secret', async () => {
		const before = backend.sandbox.engine.ledger.length;
		const result = await runNode({
			parameters: pauseParameters(anonParams),
			items: prompts(1, 'anonymous'),
			credentials: anonymous() as Record<string, ICredentialDataDecryptedObject>,
			webhookWaitingBaseUrl: host.baseUrl,
		});
		expect(result.error?.message).toMatch(/^Waiting → Pause needs the webhook signing secret/);
		const description = String(result.error?.description);
		expect(description).toMatch(/anonymous ID has no account settings/);
		expect(description).toMatch(/Waiting → Poll/);
		expect(description).not.toMatch(/holding your account's signing secret/);
		expect(backend.sandbox.engine.ledger.length).toBe(before);
	});

	test('deliveries that fail the check are read back; the warning says what an anonymous ID can do', async () => {
		// A well-formed secret that does not sign anonymous runs' deliveries (the spec does not say which does).
		const creds = anonymous(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
		const before = backend.sandbox.engine.ledger.length;
		const paused = await pause(creds, prompts(1, 'anonymous read back'), anonParams);
		const resumed = await host.resumed(paused.executionId);
		expect(resumed.error).toBeUndefined();
		expect(resumed.items[0].json.status).toBe('SUCCEEDED');
		const warning = String(resumed.items[0].json.warning);
		expect(warning).toMatch(/Nothing was lost/);
		expect(warning).toMatch(/anonymous ID has no account settings/);
		expect(warning).not.toMatch(/check the secret in/);
		const charges = backend.sandbox.engine.ledger.slice(before).filter((l) => l.reason === 'charge');
		expect(charges.map((l) => -l.delta)).toEqual([5]);
	});
});

test('a run read back as CANCELED is labelled canceled, with what is known of its credits', async () => {
	const { account: own, creds } = ownAccount(backend.sandbox, { credits: 10_000 });
	// "[stuck]" keeps the second run going (sandbox marker), so its record can be changed before it ends.
	const items = [{ json: { prompt: 'canceled 1' } }, { json: { prompt: 'canceled 2 [stuck]' } }];
	const paused: RunResult = await pause(creds, items, {}, true);
	// The service's record says CANCELED (a status the spec lists; the sandbox never makes one by itself), and its
	// delivery says so, signed as the service signs it.
	const target = runsOf(backend.sandbox, own.id).find((r) => r.prompt === 'canceled 2 [stuck]')!;
	target.status = 'CANCELED';
	const body = JSON.stringify(backend.sandbox.engine.publicRun(target));
	const answer = await postSigned(target.webhookUrl!, own.webhookSecret, `msg_${target.id}_canceled`, body);
	expect(answer.status).toBe(200);
	const resumed = await host.resumed(paused.executionId);
	const item = resumed.items[1].json;
	expect(item.status).toBe('CANCELED');
	expect(String(item.error)).toMatch(/cancel/i);
	expect(String(item.error)).not.toMatch(/failed/i);
	expect(String(item.description)).toMatch(/The service's record says CANCELED/);
	expect(item.cost).toBe(5);
	expect(item.refunded ?? undefined).toBeUndefined();
	expectLedgerAgrees(own.id, resumed.items);
});
