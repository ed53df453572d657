/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Strict mode over real HTTP: where the spec is silent, the sandbox takes the least convenient reading and adds
// nothing the spec does not define. Each choice next to the lenient default it replaces.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { UNKNOWN_FIELDS } from '../../sandbox/strict';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
	await Promise.all(sandboxes.splice(0).map((sb) => sb.close()));
});

async function sandboxWith(strict: boolean) {
	const sb = await startSandbox({ strict });
	sandboxes.push(sb);
	const account = sb.engine.createAccount({ credits: 1000 });
	const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
		const res = await fetch(`${sb.baseUrl}${path}`, {
			method,
			headers: headers ?? { authorization: `Bearer ${account.keys[0]}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: res.status, json: (await res.json()) as any, headers: res.headers };
	};
	return { sb, account, api };
}

const image = (extra: Record<string, unknown> = {}) => ({
	kind: 'image',
	model: 'studio-image-v1',
	prompt: 'a cat',
	options: { resolution: '1K' },
	...extra,
});

const unknownFieldsIn = (record: unknown) => expect(record).toMatchObject(UNKNOWN_FIELDS);
const noUnknownFieldsIn = (record: object) =>
	expect(Object.keys(record).filter((k) => k in UNKNOWN_FIELDS)).toEqual([]);

test('models lose negative_prompt and end_frame, which the spec does not define; lenient mode keeps them', async () => {
	const strict = await sandboxWith(true);
	const lenient = await sandboxWith(false);
	const strictModels = (await strict.api('GET', '/models', undefined, {})).json.models as any[];
	const lenientModels = (await lenient.api('GET', '/models', undefined, {})).json.models as any[];
	expect(strictModels).toHaveLength(30);
	for (const model of strictModels) {
		expect(model).not.toHaveProperty('negative_prompt');
		expect(model).not.toHaveProperty('end_frame');
	}
	expect(lenientModels.some((m) => 'negative_prompt' in m && 'end_frame' in m)).toBe(true);
	// The service still knows: a negativePrompt on a model that does not use it is refused, uncharged.
	const refused = await strict.api('POST', '/generations', image({ negativePrompt: 'blurry' }));
	expect([refused.status, refused.json.error]).toEqual([400, 'invalid']);
	expect(refused.json.issues).toEqual(['negativePrompt is not used by model studio-image-v1']);
	expect(strict.sb.engine.balanceOf(strict.account.id)).toBe(1000);
});

test('every record carries fields no client knows: models, apps and looks, runs and outputs, me, uploads, pages', async () => {
	const { sb, api, account } = await sandboxWith(true);
	const models = await api('GET', '/models', undefined, {});
	unknownFieldsIn(models.json);
	for (const model of models.json.models) unknownFieldsIn(model);
	const apps = await api('GET', '/apps', undefined, {});
	unknownFieldsIn(apps.json);
	for (const app of apps.json.apps) {
		unknownFieldsIn(app);
		for (const look of app.looks) unknownFieldsIn(look);
	}
	unknownFieldsIn((await api('GET', '/me')).json);
	unknownFieldsIn((await api('POST', '/uploads', { mime: 'image/png', bytes: 100 })).json);
	const submitted = await api('POST', '/generations', image());
	expect(submitted.status).toBe(202);
	unknownFieldsIn(submitted.json);
	unknownFieldsIn(submitted.json.generation);
	const run = sb.engine.runs.get(submitted.json.generation.id)!;
	sb.engine.settle(run, run.finishesAt);
	const read = await api('GET', `/generations/${run.id}`);
	unknownFieldsIn(read.json.generation);
	expect(read.json.generation.outputs.length).toBeGreaterThan(0);
	for (const output of read.json.generation.outputs) unknownFieldsIn(output);
	const page = await api('GET', '/generations?limit=1');
	unknownFieldsIn(page.json);
	unknownFieldsIn(page.json.generations[0]);
	expect(sb.engine.balanceOf(account.id)).toBe(1000 - run.cost);
});

test('lenient mode adds none of those fields', async () => {
	const { api } = await sandboxWith(false);
	noUnknownFieldsIn((await api('GET', '/me')).json);
	const submitted = await api('POST', '/generations', image());
	noUnknownFieldsIn(submitted.json.generation);
	noUnknownFieldsIn((await api('GET', '/models', undefined, {})).json.models[0]);
});

test('a new run is QUEUED, then PENDING, then PROCESSING, then final', async () => {
	const { sb, api } = await sandboxWith(true);
	const submitted = await api('POST', '/generations', image());
	expect(submitted.json.generation.status).toBe('QUEUED');
	const run = sb.engine.runs.get(submitted.json.generation.id)!;
	const seen = [run.queuedUntil! - 1, run.queuedUntil!, run.startsAt, run.finishesAt].map(
		(at) => sb.engine.settle(run, at).status,
	);
	expect(seen).toEqual(['QUEUED', 'PENDING', 'PROCESSING', 'SUCCEEDED']);
	const lenient = await sandboxWith(false);
	expect((await lenient.api('POST', '/generations', image())).json.generation.status).toBe('PENDING');
});

test('X-RateLimit-Reset is a Unix time in milliseconds (lenient: seconds until the reset)', async () => {
	const { api } = await sandboxWith(true);
	const before = Date.now();
	const reset = Number((await api('GET', '/me')).headers.get('x-ratelimit-reset'));
	expect(reset).toBeGreaterThan(before);
	expect(reset).toBeLessThanOrEqual(Date.now() + 60_000 + 1);
	const lenient = await sandboxWith(false);
	const seconds = Number((await lenient.api('GET', '/me')).headers.get('x-ratelimit-reset'));
	expect(seconds).toBeGreaterThan(0);
	expect(seconds).toBeLessThanOrEqual(60);
});

test('unknown_anon_id is answered with 404 (lenient: 401), for a bad shape and for an id marked unknown', async () => {
	const { sb, api } = await sandboxWith(true);
	const badShape = await api('GET', '/me', undefined, { 'x-anon-id': 'short' });
	expect([badShape.status, badShape.json.error]).toEqual([404, 'unknown_anon_id']);
	const marked = await fetch(`${sb.baseUrl.replace(/\/v1$/, '')}/_sandbox/anonymous-ids/unknown`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ anonId: 'forgotten-id-01' }),
	});
	expect(marked.status).toBe(200);
	const forgotten = await api('POST', '/generations', image(), {
		'x-anon-id': 'forgotten-id-01',
		'content-type': 'application/json',
	});
	expect([forgotten.status, forgotten.json.error]).toEqual([404, 'unknown_anon_id']);
	expect(sb.engine.runs.size).toBe(0);
	expect(sb.engine.ledger.filter((l) => l.ownerId === 'anon:forgotten-id-01')).toEqual([]);
	const lenient = await sandboxWith(false);
	const lenientAnswer = await lenient.api('GET', '/me', undefined, { 'x-anon-id': 'short' });
	expect([lenientAnswer.status, lenientAnswer.json.error]).toEqual([401, 'unknown_anon_id']);
});

test("a run's own webhookUrl gets a delivery with unknown fields, signed with neither the account's secret nor an endpoint's", async () => {
	const { sb, api, account } = await sandboxWith(true);
	const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
	let arrived: () => void = () => undefined;
	const delivered = new Promise<void>((resolve) => (arrived = resolve));
	const receiver = http.createServer((req, res) => {
		let body = '';
		req.on('data', (c) => (body += c));
		req.on('end', () => {
			got.push({ headers: req.headers, body });
			res.writeHead(200).end();
			arrived();
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
	try {
		const endpoint = sb.engine.addEndpoint(account.id, `${url}-registered`);
		await api('POST', '/generations', image({ webhookUrl: url }));
		await delivered;
		const { headers, body } = got[0];
		const signed = {
			'webhook-id': String(headers['webhook-id']),
			'webhook-timestamp': String(headers['webhook-timestamp']),
			'webhook-signature': String(headers['webhook-signature']),
		};
		expect(() => new Webhook(account.webhookSecret).verify(body, signed)).toThrow();
		expect(() => new Webhook(endpoint.secret).verify(body, signed)).toThrow();
		unknownFieldsIn(new Webhook(sb.engine.runWebhookSecret).verify(body, signed));
	} finally {
		await new Promise((resolve) => receiver.close(resolve));
	}
});
