/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Unit tests of fault picking: scripted sequences, seeded rates, route matching and defaults; the header styles of
// injected 429s over HTTP.
import http from 'node:http';

import type { FaultKind, RateLimitStyle } from '../../sandbox/config';
import { FaultInjector, seeded } from '../../sandbox/faults';
import { startSandbox } from '../../sandbox/server';
import { until } from '../helpers/until';

const kindsOf = (injector: FaultInjector, route: string, count: number) =>
	Array.from({ length: count }, () => injector.pick(route)?.kind ?? 'ok');

describe('FaultInjector', () => {
	test('a script is consumed one step per matching request, "ok" lets one through, then nothing', () => {
		const injector = new FaultInjector();
		injector.set([{ route: 'POST /generations', script: ['503', 'ok', 'drop_after'] }]);
		expect(injector.pick('GET /generations/:id')).toBeUndefined();
		expect(kindsOf(injector, 'POST /generations', 5)).toEqual(['503', 'ok', 'drop_after', 'ok', 'ok']);
	});

	test('defaults: slow answers wait 2 s, injected 429s say Retry-After 1', () => {
		const injector = new FaultInjector();
		injector.set([{ route: '*', script: ['slow', '429'] }]);
		expect(injector.pick('GET /models')).toEqual({ kind: 'slow', slowMs: 2000, retryAfterSeconds: 1 });
		expect(injector.pick('GET /me')).toEqual({ kind: '429', slowMs: 2000, retryAfterSeconds: 1 });
	});

	test("a rule's own slowMs and retryAfterSeconds are used", () => {
		const injector = new FaultInjector();
		injector.set([{ route: '*', script: ['429'], slowMs: 50, retryAfterSeconds: 7 }]);
		expect(injector.pick('GET /me')).toEqual({ kind: '429', slowMs: 50, retryAfterSeconds: 7 });
	});

	test('a rate draws from a seeded generator: the same seed gives the same faults', () => {
		const rules = [{ route: 'GET /generations/:id', rate: 0.5, kinds: ['500', '404'] as FaultKind[], seed: 42 }];
		const first = new FaultInjector();
		const second = new FaultInjector();
		first.set(rules);
		second.set(rules);
		const picks = kindsOf(first, 'GET /generations/:id', 200);
		expect(kindsOf(second, 'GET /generations/:id', 200)).toEqual(picks);
		expect(new Set(picks)).toEqual(new Set(['ok', '500', '404']));
		const faulted = picks.filter((k) => k !== 'ok').length;
		expect(faulted).toBeGreaterThan(60);
		expect(faulted).toBeLessThan(140);
	});

	test('without kinds a rate picks among 500, 502, 503, drop and slow', () => {
		const injector = new FaultInjector();
		injector.set([{ route: '*', rate: 1 }]);
		expect(new Set(kindsOf(injector, 'GET /me', 300))).toEqual(new Set(['500', '502', '503', 'drop', 'slow']));
	});

	test('the first rule that gives a fault wins; a spent script passes to the next rule', () => {
		const injector = new FaultInjector();
		injector.set([
			{ route: 'GET /me', script: ['404'] },
			{ route: '*', script: ['500', '500'] },
		]);
		expect(kindsOf(injector, 'GET /me', 3)).toEqual(['404', '500', '500']);
	});

	test('set() replaces the rules and starts scripts again', () => {
		const injector = new FaultInjector();
		const rules = [{ route: '*', script: ['500'] as FaultKind[] }];
		injector.set(rules);
		expect(kindsOf(injector, 'GET /me', 2)).toEqual(['500', 'ok']);
		injector.set(rules);
		expect(kindsOf(injector, 'GET /me', 1)).toEqual(['500']);
		injector.set([]);
		expect(injector.pick('GET /me')).toBeUndefined();
	});
});

describe('seeded', () => {
	test('gives numbers in [0, 1), the same sequence for the same seed', () => {
		const a = seeded(7);
		const b = seeded(7);
		const values = Array.from({ length: 50 }, () => a());
		expect(Array.from({ length: 50 }, () => b())).toEqual(values);
		expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
		expect(seeded(8)()).not.toBe(values[0]);
	});
});

describe('injected 429s in each header style', () => {
	const fetch429 = async (style?: RateLimitStyle) => {
		const sandbox = await startSandbox({
			faults: [{ route: 'GET /me', script: ['429'], retryAfterSeconds: 3, rateLimitStyle: style }],
		});
		try {
			const res = await fetch(`${sandbox.baseUrl}/me`);
			return { status: res.status, headers: res.headers, body: (await res.json()) as { error: string } };
		} finally {
			await sandbox.close();
		}
	};

	test('by default Retry-After in seconds', async () => {
		const { status, headers, body } = await fetch429();
		expect([status, body.error, headers.get('retry-after')]).toEqual([429, 'rate_limited', '3']);
	});

	test('Retry-After as an HTTP date, never earlier than the wait', async () => {
		const before = Date.now();
		const { headers } = await fetch429('retry-after-date');
		const at = Date.parse(headers.get('retry-after') ?? '');
		expect(headers.get('retry-after')).toMatch(/GMT$/);
		expect(at).toBeGreaterThanOrEqual(before + 3000);
		expect(at).toBeLessThanOrEqual(Date.now() + 4000);
	});

	test('only X-RateLimit-Reset (seconds until the window resets), Remaining 0, no Retry-After', async () => {
		const { status, headers } = await fetch429('reset-only');
		expect(status).toBe(429);
		expect(headers.get('retry-after')).toBeNull();
		expect(headers.get('x-ratelimit-remaining')).toBe('0');
		expect(Number(headers.get('x-ratelimit-reset'))).toBe(3);
	});
});

describe('a request handled late (the client gave up, the service did not)', () => {
	const submit = (sandbox: Awaited<ReturnType<typeof startSandbox>>, key: string) =>
		fetch(`${sandbox.baseUrl}/generations`, {
			method: 'POST',
			headers: { authorization: `Bearer ${account.keys[0]}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				kind: 'image',
				model: 'studio-image-v1',
				prompt: 'a lighthouse',
				options: { resolution: '1K' },
				requestKey: key,
			}),
		});
	let account: { id: string; keys: string[] };

	test.each([
		['"late" on POST /generations', { route: 'POST /generations', script: ['late' as const], lateMs: 1500 }, false],
		['a cut submission in strict mode', { route: 'POST /generations', script: ['drop' as const], lateMs: 1500 }, true],
	])('%s: no answer, then the run is made and charged after the cut', async (_name, rule, strict) => {
		const sandbox = await startSandbox({ faults: [rule], strict, timeScale: 1 });
		try {
			account = sandbox.engine.createAccount({ tier: 'paid', credits: 1000, concurrency: 3 });
			await expect(submit(sandbox, 'late-1')).rejects.toThrow();
			// Nothing exists yet when the client has given up.
			expect([...sandbox.engine.runs.values()].filter((r) => r.ownerId === account.id)).toHaveLength(0);
			await sandbox.lateRequestsHandled();
			const runs = [...sandbox.engine.runs.values()].filter((r) => r.ownerId === account.id);
			expect(runs.map((r) => r.requestKey)).toEqual(['late-1']);
			expect(sandbox.engine.accounts.get(account.id)!.credits).toBe(1000 - runs[0].cost);
			const entry = sandbox.engine.log.find((e) => e.method === 'POST' && e.fault === 'late');
			expect(entry?.status).toBe(202);
			// Made the rule's delay after the request arrived (the sandbox's own clock, not a stopwatch here).
			expect(runs[0].createdAt - entry!.at).toBeGreaterThanOrEqual(1500 - 5);
			// The same key afterwards returns that run, charged once.
			const again = (await (await submit(sandbox, 'late-1')).json()) as { generation: { id: string } };
			expect(again.generation.id).toBe(runs[0].id);
			expect(sandbox.engine.accounts.get(account.id)!.credits).toBe(1000 - runs[0].cost);
		} finally {
			await sandbox.close();
		}
	});

	test("a lenient cut (drop) is never handled; a late delay is drawn from 1 to 7 s by the rule's seed", async () => {
		const injector = new FaultInjector();
		injector.set([{ route: 'POST /generations', rate: 1, kinds: ['late'], seed: 9 }]);
		const delays = Array.from({ length: 200 }, () => injector.pick('POST /generations')!.lateMs!);
		expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000);
		expect(Math.max(...delays)).toBeLessThanOrEqual(7000);
		expect(new Set(delays).size).toBeGreaterThan(50);
		const sandbox = await startSandbox({ faults: [{ route: 'POST /generations', script: ['drop'] }], strict: false });
		try {
			account = sandbox.engine.createAccount({ tier: 'paid', credits: 1000, concurrency: 3 });
			await expect(submit(sandbox, 'cut-1')).rejects.toThrow();
			await sandbox.lateRequestsHandled();
			expect([...sandbox.engine.runs.values()].filter((r) => r.ownerId === account.id)).toHaveLength(0);
		} finally {
			await sandbox.close();
		}
	});
});

describe('whether an answer was read: the log says so for the ledger oracles', () => {
	const post = (sandbox: Awaited<ReturnType<typeof startSandbox>>, apiKey: string, agent: http.Agent) =>
		new Promise<http.IncomingMessage>((resolve, reject) => {
			const body = JSON.stringify({
				kind: 'image',
				model: 'studio-image-v1',
				prompt: 'a lighthouse',
				options: { resolution: '1K' },
			});
			const req = http.request(`${sandbox.baseUrl}/generations`, {
				method: 'POST',
				agent,
				headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			});
			req.on('response', resolve).on('error', reject);
			req.end(body);
		});
	const submissions = (sandbox: Awaited<ReturnType<typeof startSandbox>>) =>
		sandbox.engine.log.filter((e) => e.method === 'POST' && e.path === '/v1/generations');

	test('read on a kept-alive connection: sent; dropped and the connection cut at once: unread', async () => {
		const sandbox = await startSandbox({ strict: false });
		const agent = new http.Agent({ keepAlive: true });
		try {
			const { keys } = sandbox.engine.createAccount({ tier: 'paid', credits: 1000, concurrency: 3 });
			const read = await post(sandbox, keys[0], agent);
			read.resume();
			await new Promise((resolve) => read.on('end', resolve));
			// A client at its deadline: the answer has arrived, but the client cuts the connection instead of reading.
			const dropped = await post(sandbox, keys[0], agent);
			const closed = new Promise((resolve) => dropped.socket.on('close', resolve));
			dropped.socket.destroy();
			await closed;
			await until(() => submissions(sandbox)[1]?.answerSent === false, 'the dropped answer to be logged as unread');
			expect(submissions(sandbox).map((e) => [e.status, e.answerSent])).toEqual([
				[202, true],
				[202, false],
			]);
		} finally {
			agent.destroy();
			await sandbox.close();
		}
	});

	test('a client that closes each connection: read is sent, closed with the answer unread (a reset) is not', async () => {
		const sandbox = await startSandbox({ strict: false });
		const agent = new http.Agent({ keepAlive: false });
		try {
			const { keys } = sandbox.engine.createAccount({ tier: 'paid', credits: 1000, concurrency: 3 });
			const read = await post(sandbox, keys[0], agent);
			read.resume();
			await new Promise((resolve) => read.socket.on('close', resolve));
			const dropped = await post(sandbox, keys[0], agent);
			dropped.socket.resetAndDestroy();
			await until(() => submissions(sandbox)[1]?.answerSent === false, 'the dropped answer to be logged as unread');
			// The read answer stays sent after its client closed the connection as it asked.
			expect(submissions(sandbox).map((e) => [e.status, e.answerSent])).toEqual([
				[202, true],
				[202, false],
			]);
		} finally {
			await sandbox.close();
		}
	});
});
