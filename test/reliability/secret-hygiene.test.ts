/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Secret hygiene: with recognisable key, webhook secret and anonymous id values, no node output,
// error message, error description or captured log line contains any of them.
import { Logger } from '@n8n/backend-common';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import winston from 'winston';
import { Container } from '@n8n/di';
import type { IDataObject } from 'n8n-workflow';

import { signWebhook } from '../../sandbox/webhooks';
import { generateParameters } from '../helpers/generate';
import { runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { hostTrigger } from '../helpers/webhookHost';

const KEY = `sk_${'deadbeef'.repeat(5)}`;
const WHSEC_BODY = Buffer.from('canary-webhook-secret-0123456789').toString('base64');
const WHSEC = `whsec_${WHSEC_BODY}`;
const ANON = 'anon-canary-SECRET-4242';
const SECRETS = [KEY, 'deadbeefdeadbeef', WHSEC, WHSEC_BODY, ANON];

let backend: TestBackend;
const logged: string[] = [];
beforeAll(async () => {
	backend = await startBackend({}, { apiKey: KEY } as never);
	for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		jest.spyOn(console, m).mockImplementation((...args: unknown[]) => {
			logged.push(
				args
					.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a)))
					.join(' '),
			);
		});
	}
	// n8n's own logger: a transport beside its console one records every line, errors in full.
	const internal = (Container.get(Logger) as unknown as { internalLogger: winston.Logger }).internalLogger;
	internal.add(
		new winston.transports.Stream({
			stream: new Writable({
				write(chunk: Buffer, _encoding, done) {
					logged.push(chunk.toString());
					done();
				},
			}),
			format: winston.format.printf((info) => inspect(info, { depth: 8 })),
		}),
	);
	for (const stream of [process.stdout, process.stderr]) {
		jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
			logged.push(String(chunk));
			return true;
		}) as never);
	}
});
afterAll(async () => {
	jest.restoreAllMocks();
	await backend.sandbox.close();
});

function assertClean(label: string, value: unknown): void {
	const text = JSON.stringify(value ?? null);
	for (const s of SECRETS) if (text.includes(s)) throw new Error(`${label} contains a secret (${s.slice(0, 6)}…)`);
}

test('outputs, errors and logs of many operations never contain the key, the anonymous id or the webhook secret', async () => {
	const api = { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: KEY } };
	const anon = { mediaGenAnonymousApi: { baseUrl: backend.sandbox.baseUrl, secretAnonymousId: ANON } };
	const gen = (extra: IDataObject) => generateParameters({ prompt: 'p', ...extra });
	const runs = [
		await runNode({ parameters: gen({}), credentials: api }),
		await runNode({
			parameters: gen({ prompt: 'x [fail]' }),
			credentials: api,
			nodeOverrides: { onError: 'continueRegularOutput' },
		}),
		await runNode({ parameters: gen({ prompt: 'x [fail]' }), credentials: api }),
		await runNode({ parameters: { ...gen({}), authentication: 'anonymous' }, credentials: anon }),
		await runNode({
			parameters: {
				...gen({ model: 'lumora-image-2' }),
				authentication: 'anonymous',
			},
			credentials: anon,
		}),
		await runNode({
			parameters: { resource: 'account', operation: 'get', authentication: 'anonymous' },
			credentials: anon,
		}),
		await runNode({ parameters: { resource: 'account', operation: 'get' }, credentials: api }),
		await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: `sk_${'deadbeef'.repeat(4)}00000000` } },
		}),
		await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY } },
		}),
		await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: `${KEY}x` } },
		}),
		await runNode({ parameters: { resource: 'generation', operation: 'get', runId: 'gen_missing' }, credentials: api }),
	];
	runs.forEach((r, i) => {
		assertClean(`run ${i} items`, r.items);
		assertClean(`run ${i} error`, r.error);
		if (r.run) assertClean(`run ${i} run data`, r.run.data.resultData);
	});
	expect(runs.filter((r) => r.error).length).toBeGreaterThanOrEqual(5);

	// The trigger: rejected deliveries answer without the secret or the expected signature.
	const host = await hostTrigger({}, { secret: WHSEC });
	const body = JSON.stringify({ id: 'gen_x', kind: 'image', model: 'm', status: 'SUCCEEDED', outputs: [] });
	const ts = Math.floor(Date.now() / 1000);
	const expected = signWebhook(WHSEC, 'msg_1', ts, body).slice('v1,'.length);
	const answers = [
		await fetch(host.url, {
			method: 'POST',
			headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': 'v1,AAAA' },
			body,
		}),
		await fetch(host.url, {
			method: 'POST',
			headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts - 1000), 'webhook-signature': `v1,${expected}` },
			body,
		}),
		await fetch(host.url, { method: 'POST', headers: {}, body }),
	];
	for (const a of answers) {
		const text = await a.text();
		assertClean('trigger answer', text);
		expect(text).not.toContain(expected);
	}
	await host.close();
	// The capture works: n8n logged the failures it saw.
	expect(logged.join('\n')).toMatch(/The API key was not accepted|failed/);
	logged.forEach((line, i) => assertClean(`log line ${i}`, line));
});
