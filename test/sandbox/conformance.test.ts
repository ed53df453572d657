/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Conformance of the sandbox to the spec, over real HTTP: endpoints, errors, states, limits,
// uploads, listing, webhooks and media. The ledger is checked too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { runEnded } from '../helpers/sandbox';
import { until } from '../helpers/until';

let sb: Sandbox;
let key: string;
let accountId: string;
const H = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = H()) {
	const res = await fetch(`${sb.baseUrl}${path}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	let json: any;
	try {
		json = JSON.parse(text);
	} catch {
		json = text;
	}
	return { status: res.status, json, headers: res.headers };
}

const img = (extra: Record<string, unknown> = {}) => ({
	kind: 'image',
	model: 'studio-image-v1',
	prompt: 'a cat',
	options: { resolution: '1K' },
	...extra,
});
const balance = () => sb.engine.balanceOf(accountId);
/** A run's status on the sandbox's clock (settled first, as a read would). */
const statusOf = (id: string) => sb.engine.settle(sb.engine.runs.get(id)!).status;
const ended = (id: string) => runEnded(sb, id);

beforeEach(async () => {
	sb = await startSandbox();
	const a = sb.engine.createAccount({ credits: 1000 });
	key = a.keys[0];
	accountId = a.id;
});
afterEach(async () => sb.close());

describe('catalogue', () => {
	test('GET /models: 30 models (15 video, 14 image, 1 music) with the spec default prices, no identity needed', async () => {
		const r = await api('GET', '/models', undefined, {});
		expect(r.status).toBe(200);
		const models = r.json.models as any[];
		expect(models).toHaveLength(30);
		const count = (k: string) => models.filter((m) => m.kind === k).length;
		expect([count('video'), count('image'), count('music')]).toEqual([15, 14, 1]);
		const prices = (k: string) =>
			models
				.filter((m) => m.kind === k && !m.free_tier)
				.map((m) => m.credits_at_defaults)
				.sort((a, b) => a - b);
		expect(prices('video')).toEqual(
			[90, 300, 480, 445, 130, 115, 155, 130, 210, 125, 115, 185, 185, 315].sort((a, b) => a - b),
		);
		expect(prices('image')).toEqual([25, 15, 50, 15, 25, 10, 15, 10, 15, 15, 10, 10, 20].sort((a, b) => a - b));
		expect(models.find((m) => m.id === 'studio-image-v1')).toMatchObject({ credits_at_defaults: 5, free_tier: true });
		expect(models.find((m) => m.id === 'studio-video-v1')).toMatchObject({ credits_at_defaults: 20, free_tier: true });
		const music = models.find((m) => m.kind === 'music');
		expect(music.credits_at_defaults).toBe(60);
		expect(music.music.prompt_max_chars_by_mode).toEqual({ Describe: 3000, Lyrics: 5000, Instrumental: 1000 });
		expect(music.music).toMatchObject({
			style_max_chars: 1000,
			title_max_chars: 80,
			vocal: ['m', 'f'],
			songs_per_run: 2,
		});
		expect(models.some((m) => m.inputs.includes('audio'))).toBe(true);
		expect(models.some((m) => m.options.aspect === null)).toBe(true);
		expect(new Set(models.map((m) => m.reference_images_max))).toEqual(expect.objectContaining({}));
		expect(Math.max(...models.map((m) => m.reference_images_max))).toBe(14);
		expect(Math.min(...models.map((m) => m.reference_images_max))).toBe(0);
		expect(r.headers.get('access-control-allow-origin')).toBe('*');
	});

	test('GET /apps: image, video and music apps with slots and looks; music looks set the mode', async () => {
		const r = await api('GET', '/apps', undefined, {});
		const apps = r.json.apps as any[];
		expect(new Set(apps.map((a) => a.kind))).toEqual(new Set(['image', 'video', 'music']));
		for (const app of apps) for (const look of app.looks) expect(look.url).toContain(`look=${look.id}`);
		for (const app of apps.filter((a) => a.kind === 'music'))
			for (const look of app.looks) expect(look.options.tier).toBeDefined();
		expect(apps.find((a) => a.slug === 'couple-poster').inputs).toHaveLength(3);
	});

	test('GET /openapi.yaml at the service root', async () => {
		const res = await fetch(`${sb.rootUrl}/openapi.yaml`);
		expect(res.status).toBe(200);
		expect(await res.text()).toMatch(/openapi: 3\.1/);
	});
});

describe('identity', () => {
	test('no identity gives 401 unauthorized; a bad key 401 invalid_api_key', async () => {
		expect((await api('GET', '/me', undefined, {})).json.error).toBe('unauthorized');
		expect((await api('GET', '/me', undefined, { authorization: `Bearer sk_${'0'.repeat(40)}` })).json).toMatchObject({
			error: 'invalid_api_key',
		});
	});

	test('GET /me for a key and for an anonymous id', async () => {
		expect((await api('GET', '/me')).json).toMatchObject({
			tier: 'paid',
			credits: 1000,
			watermarked: false,
			concurrency: 3,
			email: expect.any(String),
		});
		const anon = (await api('GET', '/me', undefined, { 'x-anon-id': 'anon-abcdefgh' })).json;
		expect(anon).toMatchObject({ tier: 'anonymous', credits: 5, watermarked: true });
		expect(anon.email).toBeUndefined();
	});

	test('the key wins when both headers come', async () => {
		expect((await api('GET', '/me', undefined, { ...H(), 'x-anon-id': 'anon-abcdefgh' })).json.tier).toBe('paid');
	});

	test('3 anonymous wallets per address per day, then 429 anon_ip_daily', async () => {
		for (let i = 0; i < 3; i++)
			expect(
				(await api('GET', '/me', undefined, { 'x-anon-id': `anon-wallet-${i}x`, 'x-sandbox-client-ip': '10.9.9.9' }))
					.status,
			).toBe(200);
		expect(
			(await api('GET', '/me', undefined, { 'x-anon-id': 'anon-wallet-4x', 'x-sandbox-client-ip': '10.9.9.9' })).json
				.error,
		).toBe('anon_ip_daily');
	});

	test('anonymous: only the house image engine (403 needs_api_key), then 402 allowance when spent', async () => {
		const h = { 'x-anon-id': 'anon-spender-1', 'content-type': 'application/json' };
		expect(
			(await api('POST', '/generations', img({ model: 'lumora-image-2', options: { resolution: '2K' } }), h)).json
				.error,
		).toBe('needs_api_key');
		expect(
			(
				await api(
					'POST',
					'/generations',
					{ kind: 'video', model: 'studio-video-v1', prompt: 'x', options: { resolution: '480p' } },
					h,
				)
			).json.error,
		).toBe('needs_api_key');
		const first = await api('POST', '/generations', img(), h);
		expect(first.status).toBe(202);
		await ended(first.json.generation.id);
		expect((await api('POST', '/generations', img({ prompt: 'again' }), h)).json.error).toBe('allowance');
	});

	test('402 credits for a paid account without enough credits; trial_closed switch', async () => {
		sb.engine.setCredits(accountId, 3);
		expect((await api('POST', '/generations', img())).json.error).toBe('credits');
		sb.config.trialClosed = true;
		expect((await api('GET', '/me', undefined, { 'x-anon-id': 'anon-closed-1' })).json.error).toBe('trial_closed');
	});
});

describe('generations', () => {
	test('202 with cost fixed at submission; PENDING → PROCESSING → SUCCEEDED; outputs; ledger', async () => {
		sb.config.durations = { ...sb.config.durations, image: 3000 }; // long enough to be read while it runs
		const r = await api('POST', '/generations', img());
		expect(r.status).toBe(202);
		expect(r.json.generation).toMatchObject({
			status: 'PENDING',
			cost: 5,
			outputs: [],
			options: { resolution: '1K', aspect: '1:1', format: 'PNG' },
		});
		expect(balance()).toBe(995);
		const id = r.json.generation.id;
		await until(() => statusOf(id) === 'PROCESSING', 'the run to start');
		expect((await api('GET', `/generations/${id}`)).json.generation.status).toBe('PROCESSING');
		await ended(id);
		const done = (await api('GET', `/generations/${id}`)).json.generation;
		expect(done.status).toBe('SUCCEEDED');
		expect(done.outputs[0]).toMatchObject({ mime: 'image/png' });
	});

	test('price from resolution, length and audio; credits_at_defaults at defaults', async () => {
		const at = (model: string, options: Record<string, unknown>) =>
			api('POST', '/generations', {
				kind: 'video',
				model,
				prompt: 'x',
				options,
				requestKey: JSON.stringify([model, options]),
			});
		expect((await at('lumora-motion-3', { resolution: '1080p' })).json.generation.cost).toBe(300);
		sb.engine.runs.clear();
		expect((await at('lumora-motion-3', { resolution: '720p' })).json.generation.cost).toBe(200);
		sb.engine.runs.clear();
		expect(
			(await at('lumora-motion-3', { resolution: '1080p', duration: 10, audio: false })).json.generation.cost,
		).toBe(300);
	});

	test('a repeated requestKey returns the first run and charges once', async () => {
		const a = await api('POST', '/generations', img({ requestKey: 'k-1' }));
		await ended(a.json.generation.id);
		const b = await api('POST', '/generations', img({ requestKey: 'k-1' }));
		expect(b.json.generation.id).toBe(a.json.generation.id);
		expect(balance()).toBe(995);
	});

	test('validation: every problem is listed, nothing is charged', async () => {
		sb.config.rateLimits.submitPerIdentity = 100;
		const cases: Array<[Record<string, unknown>, RegExp]> = [
			[img({ prompt: '' }), /prompt/],
			[img({ prompt: 'x'.repeat(2001) }), /longer than 2000/],
			[img({ options: {} }), /resolution is required/],
			[img({ options: { resolution: '8K' } }), /resolution must be one of/],
			[img({ options: { resolution: '1K', duration: 5 } }), /duration is not accepted/],
			[img({ model: 'nimbus-xl', options: { resolution: '1K', format: 'PNG' } }), /format is not accepted/],
			[img({ negativePrompt: 'no' }), /negativePrompt is not used/],
			[img({ imageUrls: Array.from({ length: 15 }, (_, i) => `https://a.example/${i}.png`) }), /more than 14/],
			[img({ imageUrls: Array.from({ length: 5 }, (_, i) => `https://a.example/${i}.png`) }), /at most 4/],
			[img({ endImageUrl: 'https://a.example/e.png' }), /endImageUrl is not supported/],
			[img({ audioUrl: 'https://a.example/a.mp3' }), /audioUrl is accepted only/],
			[img({ webhookUrl: 'https://10.0.0.1/hook' }), /public host/],
			[img({ webhookUrl: 'http://hooks.example.com/x' }), /https/],
			[img({ webhookUrl: `https://hooks.example.com/${'a'.repeat(480)}` }), /longer than 500/],
			[img({ requestKey: 'k'.repeat(121) }), /longer than 120/],
			[
				{
					kind: 'music',
					model: 'cadence-song-v1',
					prompt: 'x'.repeat(3001),
					options: { resolution: 'song', tier: 'Describe' },
				},
				/longer than 3000/,
			],
			[
				{
					kind: 'music',
					model: 'cadence-song-v1',
					prompt: 'x',
					options: { resolution: 'song', tier: 'Instrumental', style: 'jazz' },
				},
				/style is used only/,
			],
			[
				{
					kind: 'music',
					model: 'cadence-song-v1',
					prompt: 'x',
					options: { resolution: 'song', tier: 'Describe', title: 'T' },
				},
				/title is used only/,
			],
			[
				{
					kind: 'music',
					model: 'cadence-song-v1',
					prompt: 'x',
					options: { resolution: 'song', tier: 'Instrumental', vocal: 'm' },
				},
				/vocal is used only in Lyrics/,
			],
			[
				{
					kind: 'music',
					model: 'cadence-song-v1',
					prompt: 'x',
					options: { resolution: 'song', tier: 'Lyrics', title: 'x'.repeat(81) },
				},
				/title is longer than 80/,
			],
			[{ kind: 'video', model: 'orchid-avatar', prompt: 'x', options: { resolution: '720p' } }, /needs driving audio/],
		];
		for (const [body, pattern] of cases) {
			const r = await api('POST', '/generations', body);
			expect(r.status).toBe(400);
			expect(r.json.error).toBe('invalid');
			expect((r.json.issues as string[]).join(' | ')).toMatch(pattern);
		}
		expect(balance()).toBe(1000);
	});

	test('moderation: rejected and uncharged; outage and pause give 503s, uncharged', async () => {
		expect((await api('POST', '/generations', img({ prompt: 'something forbidden' }))).json.error).toBe('rejected');
		sb.config.moderation = 'down';
		expect((await api('POST', '/generations', img())).json).toMatchObject({ error: 'moderation_unavailable' });
		sb.config.moderation = 'up';
		sb.config.paused = true;
		expect((await api('POST', '/generations', img())).status).toBe(503);
		expect(balance()).toBe(1000);
	});

	test('a failed run is refunded automatically; a stuck run fails and is refunded', async () => {
		sb.config.timeScale = 0.0005; // 30 minutes → 0.9 s
		const f = await api('POST', '/generations', img({ prompt: 'x [fail]' }));
		const s = await api('POST', '/generations', img({ prompt: 'x [stuck]' }));
		await ended(f.json.generation.id);
		await ended(s.json.generation.id);
		expect((await api('GET', `/generations/${f.json.generation.id}`)).json.generation).toMatchObject({
			status: 'FAILED',
			error: expect.any(String),
		});
		expect((await api('GET', `/generations/${s.json.generation.id}`)).json.generation.status).toBe('FAILED');
		expect(balance()).toBe(1000);
	});

	test('runs keep going when nobody polls', async () => {
		const r = await api('POST', '/generations', img());
		// Nothing reads the run: the sandbox moves it on by itself.
		const run = () => sb.engine.runs.get(r.json.generation.id)!;
		await until(() => run().status === 'SUCCEEDED', 'the run to succeed unread');
		expect(run().status).toBe('SUCCEEDED');
	});

	test('concurrency: paid 3 then 409 busy', async () => {
		for (let i = 0; i < 3; i++) expect((await api('POST', '/generations', img({ prompt: `p${i}` }))).status).toBe(202);
		expect((await api('POST', '/generations', img({ prompt: 'p4' }))).json.error).toBe('busy');
	});

	test("another identity's run is 404 not_found", async () => {
		const r = await api('POST', '/generations', img());
		const other = sb.engine.createAccount();
		expect(
			(
				await api('GET', `/generations/${r.json.generation.id}`, undefined, {
					authorization: `Bearer ${other.keys[0]}`,
				})
			).json.error,
		).toBe('not_found');
	});

	test('listing: newest first, limit, before cursor, next_before null on the last page, limit bounds', async () => {
		sb.config.rateLimits.submitPerIdentity = 100;
		for (let i = 0; i < 7; i++) {
			const r = await api('POST', '/generations', img({ prompt: `p${i}` }));
			await ended(r.json.generation.id); // one at a time, each created after the last
		}
		const seen: string[] = [];
		let before: number | null | undefined;
		let pages = 0;
		do {
			const r = await api('GET', `/generations?limit=3${before ? `&before=${before}` : ''}`);
			seen.push(...r.json.generations.map((g: any) => g.prompt));
			before = r.json.next_before;
			pages++;
		} while (before);
		expect(pages).toBe(3);
		expect(seen).toEqual(['p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0']);
		expect((await api('GET', '/generations')).json.generations).toHaveLength(7);
		expect((await api('GET', '/generations?limit=101')).json.error).toBe('invalid');
		expect((await api('GET', '/generations?limit=0')).json.error).toBe('invalid');
	});

	test('rate limits carry Retry-After and X-RateLimit headers', async () => {
		sb.config.rateLimits.readPerIdentity = 2;
		const first = await api('GET', '/me');
		expect(first.headers.get('x-ratelimit-limit')).toBe('2');
		expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
		await api('GET', '/me');
		const limited = await api('GET', '/me');
		expect(limited.status).toBe(429);
		expect(limited.json.error).toBe('rate_limited');
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
		expect(limited.headers.get('x-ratelimit-reset')).toBeTruthy();
	});

	test('a 502 provider failure is refunded and leaves no run under the key', async () => {
		sb.faults.set([{ route: 'POST /generations', script: ['502'] }]);
		expect((await api('POST', '/generations', img({ requestKey: 'p-1' }))).json.error).toBe('provider');
		expect(balance()).toBe(1000);
		expect((await api('POST', '/generations', img({ requestKey: 'p-1' }))).status).toBe(202);
		expect(balance()).toBe(995);
	});
});

describe('uploads and media', () => {
	test('slot, PUT with the same type and size, URL usable in imageUrls; wrong type, too large, expired', async () => {
		const png = Buffer.from('89504e470d0a1a0a', 'hex');
		const slot = (await api('POST', '/uploads', { mime: 'image/png', bytes: png.length })).json;
		expect(slot.expires_in).toBe(300);
		expect(
			(await fetch(slot.upload_url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: png })).status,
		).toBe(400);
		expect(
			(await fetch(slot.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status,
		).toBe(200);
		expect((await api('POST', '/generations', img({ imageUrls: [slot.url] }))).status).toBe(202);
		expect((await api('POST', '/uploads', { mime: 'text/plain', bytes: 3 })).json.error).toBe('invalid');
		expect((await api('POST', '/uploads', { mime: 'image/png', bytes: 11 * 1024 * 1024 })).json.error).toBe(
			'too_large',
		);
		expect((await api('POST', '/uploads', { mime: 'video/mp4', bytes: 51 * 1024 * 1024 })).status).toBe(413);
		// The caps are in the spec's megabytes (1,000,000 bytes): 10.3 MB is over, exactly 10 MB is not.
		expect((await api('POST', '/uploads', { mime: 'image/png', bytes: 10_300_000 })).status).toBe(413);
		expect((await api('POST', '/uploads', { mime: 'image/png', bytes: 10_000_000 })).status).toBe(200);
		sb.config.timeScale = 0.0001;
		const quick = (await api('POST', '/uploads', { mime: 'image/png', bytes: png.length })).json;
		const quickSlot = [...sb.engine.uploads.values()].at(-1)!;
		await until(() => Date.now() > quickSlot.expiresAt, 'the upload slot to expire');
		const expired = await fetch(quick.upload_url, {
			method: 'PUT',
			headers: { 'content-type': 'image/png' },
			body: png,
		});
		expect(expired.status).toBe(403);
		expect(((await expired.json()) as any).message).toMatch(/expired/);
	});

	test('outputs are real media with the right types', async () => {
		const magic: Array<[Record<string, unknown>, string, (b: Buffer) => boolean]> = [
			[
				img({ options: { resolution: '1K', format: 'PNG' } }),
				'image/png',
				(b) => b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')),
			],
			[
				img({ options: { resolution: '1K', format: 'JPG' } }),
				'image/jpeg',
				(b) => b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9,
			],
			[
				img({ options: { resolution: '1K', format: 'WEBP' } }),
				'image/webp',
				(b) => b.subarray(0, 4).toString() === 'RIFF' && b.subarray(8, 12).toString() === 'WEBP',
			],
			[
				{ kind: 'video', model: 'studio-video-v1', prompt: 'v', options: { resolution: '480p' } },
				'video/mp4',
				(b) => b.subarray(4, 8).toString() === 'ftyp',
			],
			[
				{ kind: 'music', model: 'cadence-song-v1', prompt: 'm', options: { resolution: 'song' } },
				'audio/mpeg',
				(b) => b.subarray(0, 3).toString() === 'ID3',
			],
		];
		for (const [body, mime, check] of magic) {
			const r = await api('POST', '/generations', body);
			await ended(r.json.generation.id);
			const run = (await api('GET', `/generations/${r.json.generation.id}`)).json.generation;
			const res = await fetch(run.outputs[0].url);
			expect(res.headers.get('content-type')).toBe(mime);
			expect(check(Buffer.from(await res.arrayBuffer()))).toBe(true);
		}
	});
});

describe('webhooks', () => {
	async function receiver(statuses: number[] = []) {
		const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
		const server = http.createServer((req, res) => {
			let body = '';
			req.on('data', (c) => (body += c));
			req.on('end', () => {
				got.push({ headers: req.headers, body });
				res.writeHead(statuses.shift() ?? 200).end();
			});
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		return {
			got,
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
			close: () => new Promise((r) => server.close(r)),
		};
	}

	test('a registered endpoint gets one signed delivery that verifies with standardwebhooks, and fails it on a changed byte', async () => {
		const rx = await receiver();
		const ep = sb.engine.addEndpoint(accountId, rx.url);
		const r = await api('POST', '/generations', img());
		await until(() => sb.engine.webhooks.deliveries.some((d) => d.delivered), 'the delivery');
		expect(rx.got).toHaveLength(1);
		const { headers, body } = rx.got[0];
		expect(headers['webhook-id']).toBe(`msg_${r.json.generation.id}_succeeded`);
		const wh = new Webhook(ep.secret);
		const h = {
			'webhook-id': String(headers['webhook-id']),
			'webhook-timestamp': String(headers['webhook-timestamp']),
			'webhook-signature': String(headers['webhook-signature']),
		};
		expect(wh.verify(body, h)).toMatchObject({ id: r.json.generation.id, status: 'SUCCEEDED' });
		expect(() => wh.verify(body.replace('SUCCEEDED', 'SUCCEEDEE'), h)).toThrow();
		await rx.close();
	});

	test('per-run webhookUrl alone receives it; a failed run carries refunded; retries keep the same id', async () => {
		sb.config.timeScale = 0.0002; // 1 minute → 12 ms
		const registered = await receiver();
		const own = await receiver([500, 500]);
		sb.engine.addEndpoint(accountId, registered.url);
		const r = await api('POST', '/generations', img({ prompt: 'x [fail]', webhookUrl: own.url }));
		await until(() => sb.engine.webhooks.deliveries.some((d) => d.delivered), 'the delivery after two failures');
		expect(sb.engine.webhooks.deliveries.map((d) => d.url)).toEqual([own.url]);
		expect(registered.got).toHaveLength(0);
		expect(own.got.length).toBe(3);
		expect(new Set(own.got.map((g) => g.headers['webhook-id']))).toEqual(
			new Set([`msg_${r.json.generation.id}_failed`]),
		);
		expect(JSON.parse(own.got[2].body)).toMatchObject({ status: 'FAILED', refunded: 5 });
		await registered.close();
		await own.close();
	});

	test('redirects are not followed and count as failures', async () => {
		sb.config.timeScale = 0.0002;
		const rx = await receiver([302, 200]);
		sb.engine.addEndpoint(accountId, rx.url);
		await api('POST', '/generations', img());
		await until(() => sb.engine.webhooks.deliveries[0]?.delivered === true, 'the delivery after a redirect');
		const d = sb.engine.webhooks.deliveries[0];
		expect(d.attempts[0].status).toBe(302);
		expect(d.delivered).toBe(true);
		expect(d.attempts).toHaveLength(2);
		await rx.close();
	});
});

describe('remaining rows of the spec tables', () => {
	test('CORS preflight answers with CORS headers', async () => {
		const res = await fetch(`${sb.baseUrl}/generations`, { method: 'OPTIONS' });
		expect(res.status).toBe(204);
		expect(res.headers.get('access-control-allow-headers')).toContain('x-anon-id');
	});

	test('a malformed anonymous id gives unknown_anon_id', async () => {
		expect((await api('GET', '/me', undefined, { 'x-anon-id': 'no' })).json.error).toBe('unknown_anon_id');
	});

	test('submissions: 60 a minute per address across identities', async () => {
		sb.config.rateLimits.submitPerAddress = 3;
		const others = [sb.engine.createAccount(), sb.engine.createAccount()];
		const statuses: number[] = [];
		for (const a of [...others, ...others]) {
			statuses.push(
				(
					await api('POST', '/generations', img({ prompt: `p${statuses.length}` }), {
						authorization: `Bearer ${a.keys[0]}`,
						'content-type': 'application/json',
					})
				).status,
			);
		}
		expect(statuses).toEqual([202, 202, 202, 429]);
	});

	test('upload slots: 30 a minute per identity', async () => {
		sb.config.rateLimits.uploadPerIdentity = 2;
		const s = [];
		for (let i = 0; i < 3; i++) s.push((await api('POST', '/uploads', { mime: 'image/png', bytes: 10 })).status);
		expect(s).toEqual([200, 200, 429]);
	});

	test('an upload outage gives 503 storage_unavailable', async () => {
		sb.faults.set([{ route: 'POST /uploads', script: ['503'] }]);
		expect((await api('POST', '/uploads', { mime: 'image/png', bytes: 10 })).json).toMatchObject({
			error: 'storage_unavailable',
		});
	});

	test('cancelling is not supported: there is no cancel route', async () => {
		const r = await api('POST', '/generations', img());
		expect((await api('POST', `/generations/${r.json.generation.id}/cancel`)).status).toBe(404);
	});

	test('at most 5 webhook endpoints per account', () => {
		for (let i = 0; i < 5; i++) sb.engine.addEndpoint(accountId, `https://hooks.example.com/${i}`);
		expect(() => sb.engine.addEndpoint(accountId, 'https://hooks.example.com/6')).toThrow(/at most 5/);
	});

	test('an endpoint failing for 3 days (scaled) is switched off and its owner notified; test events and the delivery log', async () => {
		sb.config.timeScale = 0.00001; // 3 days → 2.6 s; retries every few ms
		const ep = sb.engine.addEndpoint(accountId, 'http://127.0.0.1:9/unreachable');
		await api('POST', '/generations', img({ prompt: 'first' }));
		const first = () => sb.engine.webhooks.deliveries[0];
		// Its retries end after ~1.2 s (32.6 h scaled), still failing: under 3 days, the endpoint stays on.
		await until(() => first()?.attempts.length > 0 && first().pendingRetries === 0, 'the retries to run out');
		expect(ep.enabled).toBe(true);
		await until(() => Date.now() - first().attempts[0].at > 3 * 24 * 3600_000 * 0.00001, 'three days (scaled)');
		await api('POST', '/generations', img({ prompt: 'second' }));
		await until(() => !ep.enabled, 'the endpoint to be switched off');
		expect(ep.enabled).toBe(false);
		expect(ep.disabledNotice).toMatch(/notified by e-mail/);
		const ok = sb.engine.addEndpoint(accountId, 'http://127.0.0.1:9/also-unreachable');
		sb.engine.sendTestEvent(accountId);
		const recent = sb.engine.webhooks.recent(accountId);
		expect(recent.length).toBeLessThanOrEqual(50);
		expect(recent[0].msgId).toMatch(/^msg_test_/);
		expect(JSON.parse(recent[0].body).type).toBe('test');
		expect(recent.some((d) => d.endpointId === ok.id)).toBe(true);
	});
});
