// Pause mode does not depend on which secret signs a run's own Webhook URL (the spec does not say). The sandbox
// in strict mode signs those deliveries with a secret of its own, which no credential holds: each delivery is
// then a wake-up call, its run read back with the API credential and taken when final, with one warning.
// Forged calls change nothing and cost at most one read.
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import type { TestBackend } from '../helpers/sandbox';
import { postSigned } from '../helpers/signing';
import type { WaitingHost } from '../helpers/waitingHost';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
usePauseStack((b, h) => ([backend, host] = [b, h]), { strict: true });

const prompts = (...list: string[]) => list.map((prompt) => ({ json: { prompt } }));

async function pause(creds: Record<string, IDataObject>, items: INodeExecutionData[]) {
	const credentials = creds as Record<string, ICredentialDataDecryptedObject>;
	const r = await runNode({ parameters: pauseParameters(), items, credentials, webhookWaitingBaseUrl: host.baseUrl });
	expect(r.run.status).toBe('waiting');
	host.hold(r, creds);
	return r;
}

/** Reads of one run by the node (GET /generations/{id}). */
const readsOf = (runId: string) => backend.requests(`GET /v1/generations/${runId}`).length;

test('deliveries signed with a secret the credential does not hold: every file, one charge each, one warning', async () => {
	const own = ownAccount(backend.sandbox);
	const r = await pause(own.creds, prompts('strict one', 'strict two', 'strict three'));
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items.map((i) => i.json.prompt)).toEqual(['strict one', 'strict two', 'strict three']);
	for (const item of resumed.items) {
		expect(item.json.status).toBe('SUCCEEDED');
		expect(item.binary?.data.mimeType).toBe('image/png');
	}
	expect(own.charges()).toBe(15);
	// The deliveries really were signed with another secret than the credential's.
	const sent = backend.sandbox.engine.webhooks.deliveries.filter((d) => d.url.includes(r.executionId));
	expect(sent.length).toBeGreaterThanOrEqual(1);
	// One warning, on the first item, naming the credential and the secret to check.
	const warnings = resumed.items.map((i) => i.json.warning).filter(Boolean);
	expect(warnings).toHaveLength(1);
	expect(String(resumed.items[0].json.warning)).toMatch(
		/failed the signature check \(Signature does not match\)\. Nothing was lost: the node read/,
	);
	expect(String(resumed.items[0].json.warning)).toContain(
		'check the secret in the Webhook Signing Secret credential "Media Generation Webhook Signing Secret"',
	);
	expect(JSON.stringify(resumed.items.map((i) => i.json))).not.toMatch(/whsec_|sk_/);
});

test('a failed run taken on its read-back without Continue On Fail: the error says what failed, and the warning', async () => {
	const own = ownAccount(backend.sandbox);
	const r = await pause(own.creds, prompts('strict [fail]'));
	const resumed = await host.resumed(r.executionId);
	expect(resumed.error?.message).toMatch(/failed/);
	expect(resumed.error?.description).toMatch(/Also: 1 delivery to this step failed the signature check/);
	// Charged and refunded (the sum may come out as -0).
	expect(own.charges() || 0).toBe(0);
});

describe('forged calls change nothing and cost at most one read', () => {
	const forge = (url: string, body: IDataObject): Promise<Response> =>
		postSigned(url, Buffer.alloc(32, 7), `msg_forged_${Math.random().toString(36).slice(2)}`, JSON.stringify(body));

	test('unknown ids get no read; a known id or position gets one; the execution waits on, nothing charged twice', async () => {
		const own = ownAccount(backend.sandbox);
		const r = await pause(own.creds, prompts('forged [stuck]'));
		const run = own.runs()[0];
		const resumeUrl = new URL(run.webhookUrl!);
		const bare = new URL(resumeUrl);
		bare.searchParams.delete('mgItem');
		const fakeRun = { ...run, id: 'gen_forged', status: 'SUCCEEDED', outputs: [] };
		const allReads = () => backend.requests('GET /v1/generations').length;

		// An ID the batch does not know, at no position: refused without a read.
		let before = allReads();
		let answer = await forge(bare.toString(), fakeRun as never);
		expect(answer.status).toBe(401);
		expect(allReads()).toBe(before);

		// The known run's ID, claiming success: one read, which says it is still running: refused.
		before = readsOf(run.id);
		const beforeAll = allReads();
		answer = await forge(bare.toString(), { ...fakeRun, id: run.id } as never);
		expect(answer.status).toBe(401);
		expect(readsOf(run.id) - before).toBe(1);
		expect(allReads() - beforeAll).toBe(1);

		// Any body at the item's own address: one read of that item's run, refused.
		before = allReads();
		answer = await forge(resumeUrl.toString(), { id: 'gen_other' });
		expect(answer.status).toBe(401);
		expect(allReads() - before).toBe(1);

		expect(host.isWaiting(r.executionId)).toBe(true);
		expect(own.charges()).toBe(5);
		expect(
			backend.requests('POST /v1/generations').filter((e) => (e.body as IDataObject)?.prompt === 'forged [stuck]'),
		).toHaveLength(1);
	});
});
