/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Batches within the account's concurrency and rate limits; the anonymous free tier.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { loadOptionsContext, runNode } from '../helpers/engine';
import { generateParameters } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';

describe('batch of 12 items on an account with concurrency 3', () => {
	let backend: TestBackend;
	beforeAll(async () => {
		backend = await startBackend(
			{ durations: { pendingMs: 100, image: 700, video: 700, music: 700 } },
			{ concurrency: 3 },
		);
	});
	afterAll(async () => backend.sandbox.close());

	test('keeps at most 3 runs in flight, beats serial, gets no 429 or 409, and keeps input order', async () => {
		let maxInFlight = 0;
		const sampler = setInterval(() => {
			const active = [...backend.sandbox.engine.runs.values()].filter((r) =>
				backend.sandbox.engine.isActive(backend.sandbox.engine.settle(r)),
			).length;
			maxInFlight = Math.max(maxInFlight, active);
		}, 20);
		const r = await runNode({
			parameters: generateParameters({ prompt: '={{ $json.prompt }}' }),
			items: Array.from({ length: 12 }, (_, i) => ({ json: { prompt: `picture number ${i}` } })),
			credentials: backend.apiCredentials,
		});
		clearInterval(sampler);
		expect(r.error).toBeUndefined();
		expect(r.items).toHaveLength(12);
		r.items.forEach((item, i) => {
			expect(item.json.prompt).toBe(`picture number ${i}`);
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.binary?.data).toBeDefined();
		});
		expect(maxInFlight).toBeLessThanOrEqual(3);
		// Runs overlap (the makespan against serial is measured in bench/makespan.ts).
		expect(maxInFlight).toBeGreaterThan(1);
		expect(backend.requests().filter((e) => e.status === 429)).toHaveLength(0);
		expect(backend.requests().filter((e) => e.status === 409)).toHaveLength(0);
		expect(backend.charges()).toBe(60);
	});
});

// X-RateLimit-Reset in seconds until the reset (lenient) and as a Unix time in ms (strict): read as seconds,
// the strict reading would hold every request for ever.
describe.each([
	['seconds until the reset', false],
	['a Unix time in ms', true],
])('rate limits in a batch, X-RateLimit-Reset as %s', (_reading, strict) => {
	let backend: TestBackend;
	beforeAll(async () => {
		// 5 submissions a (scaled) minute of 2 s: the node must pace itself by the headers.
		backend = await startBackend({
			strict,
			timeScale: 2 / 60,
			rateLimits: {
				submitPerIdentity: 5,
				submitPerAddress: 60,
				readPerIdentity: 240,
				readPerAddress: 600,
				uploadPerIdentity: 30,
			},
		});
	});
	afterAll(async () => backend.sandbox.close());

	test('8 submissions against a limit of 5 per window provoke no 429', async () => {
		const r = await runNode({
			parameters: generateParameters({ prompt: 'paced', waitForCompletion: false }),
			items: Array.from({ length: 8 }, () => ({ json: {} })),
			credentials: backend.apiCredentials,
			nodeOverrides: {},
		});
		expect(r.error).toBeUndefined();
		expect(r.items).toHaveLength(8);
		const log = backend.sandbox.engine.log.filter((e) => e.method === 'POST');
		expect(
			log.filter((e) => e.status === 429).map(() => log.map((e) => `${e.at % 100000}:${e.status}`).join(' ')),
		).toEqual([]);
	});

	test('a 429 with Retry-After is waited out and retried', async () => {
		backend.sandbox.limiter.clear();
		const key = backend.account.keys[0];
		// Spend the window from outside the node, so its first request meets a 429.
		for (let i = 0; i < 240; i++) {
			await fetch(`${backend.sandbox.baseUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
		}
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: backend.apiCredentials,
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.credits).toBeGreaterThan(0);
		const me = backend.requests('GET /v1/me');
		expect(me.some((e) => e.status === 429)).toBe(true);
		expect(me[me.length - 1].status).toBe(200);
	});
});

describe('anonymous free tier', () => {
	let backend: TestBackend;
	beforeAll(async () => {
		backend = await startBackend();
	});
	afterAll(async () => backend.sandbox.close());

	test('the house image engine works and is watermarked', async () => {
		const creds = backend.anonCredentials('anon-free-tier-01');
		const r = await runNode({
			parameters: generateParameters({ authentication: 'anonymous', prompt: 'free picture' }),
			credentials: creds,
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.status).toBe('SUCCEEDED');
		const png = Buffer.from(r.items[0].binary!.data.data, 'base64').toString('latin1');
		expect(png).toContain('watermarked');
		const me = await runNode({
			parameters: { authentication: 'anonymous', resource: 'account', operation: 'get' },
			credentials: creds,
		});
		expect(me.items[0].json).toMatchObject({ tier: 'anonymous', credits: 0, watermarked: true });
		expect(JSON.stringify(me.items[0].json)).not.toContain('anon-free-tier-01');
	});

	test.each(['lumora-image-2', 'studio-video-v1'])('%s is refused before any request is sent', async (model) => {
		const kind = model.includes('video') ? 'video' : 'image';
		const posts = backend.requests('POST /v1/generations').length;
		const r = await runNode({
			parameters: generateParameters({ authentication: 'anonymous', kind, model, prompt: 'p' }),
			credentials: backend.anonCredentials('anon-free-tier-02'),
		});
		expect(r.error?.message).toMatch(/not covered by the anonymous free tier/);
		// The refusal is the only reason given: the model's prompt and image limits are not the problem.
		expect(r.error?.description).toMatch(/nothing was charged/);
		expect(r.error?.description).not.toMatch(/accepts:|reference images|characters/);
		expect(backend.requests('POST /v1/generations').length).toBe(posts);
	});

	test('a malformed anonymous id is refused before any request, without echoing it', async () => {
		const before = backend.requests().length;
		const r = await runNode({
			parameters: { authentication: 'anonymous', resource: 'account', operation: 'get' },
			credentials: backend.anonCredentials('bad id!'),
		});
		expect(r.error?.message).toMatch(/8 to 80 characters/);
		expect(r.error?.message).not.toContain('bad id!');
		expect(backend.requests().length).toBe(before);
	});

	test('a malformed API key is refused before any request, naming the shape', async () => {
		const before = backend.requests().length;
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: 'sk_live_oops' } },
		});
		expect(r.error?.message).toMatch(/sk_ followed by exactly 40 hex characters/);
		expect(backend.requests().length).toBe(before);
	});

	test('a revoked key gives the invalid_api_key message and action, without the key', async () => {
		const key = `sk_${'f'.repeat(40)}`;
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { baseUrl: backend.sandbox.baseUrl, apiKey: key } },
		});
		expect(r.error?.message).toBe('The API key was not accepted: it is invalid or has been revoked');
		expect(r.error?.description).toContain('Check the key');
		expect(JSON.stringify(r.error)).not.toContain(key);
		const items = (r.run.data.resultData.runData['Media Generation']?.[0]?.data?.main?.[0] ?? []) as Array<{
			json: IDataObject;
		}>;
		expect(JSON.stringify(items)).not.toContain(key);
	});
});

describe('the catalogue decides what is offered', () => {
	let backend: TestBackend;
	const file = path.join(os.tmpdir(), `models-${process.pid}.json`);
	beforeAll(async () => {
		const models = JSON.parse(readFileSync(path.join(__dirname, '../../sandbox/data/models.json'), 'utf8'));
		const copy = {
			...models.models.find((m: { id: string }) => m.id === 'studio-image-v1'),
			id: 'brand-new-painter-9',
			name: 'Brand New Painter',
			free_tier: false,
			credits_at_defaults: 7,
		};
		copy.options = { ...copy.options, resolution: ['3K'], aspect: ['5:4'] };
		copy.defaults = { resolution: '3K', aspect: '5:4', format: 'PNG' };
		writeFileSync(file, JSON.stringify({ models: [copy] }));
		backend = await startBackend({ modelsFile: file });
	});
	afterAll(async () => backend.sandbox.close());

	test('a model and options that exist only in another catalogue file work with no code change', async () => {
		const { searchModels } = await import('../../nodes/MediaGen/methods');
		const { optionFieldsFor } = await import('../../nodes/MediaGen/methods/resourceMapping');
		const { getModels } = await import('../../nodes/MediaGen/catalogue/catalogue');
		const ctx = loadOptionsContext(
			{ authentication: 'apiKey', resource: 'generation', operation: 'generate', kind: 'image' },
			backend.apiCredentials,
		);
		const list = await searchModels.call(ctx as never);
		expect(list.results.map((r) => r.value)).toEqual(['brand-new-painter-9']);
		expect(list.results[0].name).toBe('Image · Brand New Painter (Studio) · 7 credits');
		const [model] = await getModels(ctx as never);
		expect(
			optionFieldsFor(model)
				.find((f) => f.id === 'aspect')
				?.options?.map((o) => [o.name, o.value]),
		).toEqual([
			['Model Default (5:4)', ''],
			['5:4 (default)', '5:4'],
		]);
		const r = await runNode({
			parameters: {
				resource: 'generation',
				operation: 'generate',
				kind: 'image',
				model: { __rl: true, mode: 'id', value: 'brand-new-painter-9' },
				prompt: 'new',
				modelOptions: { mappingMode: 'defineBelow', value: { aspect: '5:4' } },
				waiting: { pollIntervalSeconds: 1 },
			},
			credentials: backend.apiCredentials,
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].json).toMatchObject({
			model: 'brand-new-painter-9',
			cost: 7,
			options: { resolution: '3K', aspect: '5:4' },
		});
	});
});
