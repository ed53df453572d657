/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the Webhook Signing Secret credential's help promises an anonymous ID, which has no account settings and so
// no signing secret (spec, Authentication): Waiting → Pause with any secret of the right shape still finishes, each
// delivery read back with the anonymous credential; the trigger, even with an API key attached, never takes a run of
// an anonymous ID, and its log says why.
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { newWebhookSecret } from '../../sandbox/webhooks';
import { runNode } from '../helpers/engine';
import { pauseParameters, usePauseStack } from '../helpers/pauseStep';
import type { TestBackend } from '../helpers/sandbox';
import type { WaitingHost } from '../helpers/waitingHost';
import { hostTrigger, type WebhookHost } from '../helpers/webhookHost';
import { until } from '../helpers/until';
import { deliveryOf } from '../helpers/world';

let backend: TestBackend;
let waiting: WaitingHost;
let trigger: WebhookHost | undefined;

usePauseStack((b, h) => ([backend, waiting] = [b, h]));
afterAll(async () => await trigger?.close());

test('Waiting → Pause with an anonymous ID and a secret made up in the right shape: the run is taken', async () => {
	const anonId = `anon-pause-${Date.now()}`;
	const creds: Record<string, IDataObject> = {
		...backend.anonCredentials(anonId),
		mediaGenWebhookApi: { secret: newWebhookSecret() },
	};
	const r = await runNode({
		parameters: pauseParameters({ authentication: 'anonymous' }),
		items: [{ json: { prompt: 'anonymous pause' } }],
		credentials: creds as Record<string, ICredentialDataDecryptedObject>,
		webhookWaitingBaseUrl: waiting.baseUrl,
	});
	expect(r.run.status).toBe('waiting');
	waiting.hold(r, creds);
	const resumed = await waiting.resumed(r.executionId);
	expect(resumed.error).toBeUndefined();
	expect(resumed.items.map((i) => i.json.status)).toEqual(['SUCCEEDED']);
	expect(resumed.items[0].binary?.data.mimeType).toBe('image/png');
	expect(String(resumed.items[0].json.warning)).toMatch(/failed the signature check/);
});

test('the trigger never takes a run of an anonymous ID, even with an API key attached; its log says why', async () => {
	const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => undefined);
	try {
		const api = { baseUrl: backend.sandbox.baseUrl, apiKey: backend.account.keys[0] };
		trigger = await hostTrigger({}, { secret: newWebhookSecret() }, 0, { apiCredentials: api });
		const res = await fetch(`${backend.sandbox.baseUrl}/generations`, {
			method: 'POST',
			headers: { 'x-anon-id': `anon-trigger-${Date.now()}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				kind: 'image',
				model: 'studio-image-v1',
				prompt: 'anonymous run',
				options: { resolution: '1K' },
				webhookUrl: trigger.url,
			}),
		});
		const runId = ((await res.json()) as { generation: { id: string } }).generation.id;
		await until(
			() => !!deliveryOf(backend.sandbox, runId)?.attempts.length && trigger!.responses.length > 0,
			'the delivery to be answered',
			5_000,
		);
		expect(deliveryOf(backend.sandbox, runId)!.attempts[0].status).toBe(401);
		expect(trigger.started).toHaveLength(0);
		const logged = JSON.stringify(warn.mock.calls);
		expect(logged).toContain(`its run ${runId} did not read back as a finished run of the account`);
		expect(logged).toContain('Runs made with an anonymous ID cannot be checked here');
	} finally {
		warn.mockRestore();
	}
});
