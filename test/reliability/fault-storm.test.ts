// Fault storm: 100 Generate items while every API route fails at a seeded 20% (500, 502, 503,
// dropped connections before and after processing, answers slower than the client's time limit).
// Every item ends as a finished run with its file or as a clear error item; nobody is charged twice;
// every refused or failed run is refunded; nothing throws past the node.
import type { IDataObject } from 'n8n-workflow';

import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { runsOf } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend(
		{
			durations: { pendingMs: 50, image: 250, video: 250, music: 250 },
			rateLimits: {
				submitPerIdentity: 10_000,
				submitPerAddress: 10_000,
				readPerIdentity: 10_000,
				readPerAddress: 10_000,
				uploadPerIdentity: 10_000,
			},
			faults: [
				{
					route: '*',
					rate: 0.2,
					seed: 20261122,
					kinds: ['500', '502', '503', 'drop', 'drop_after', 'slow'],
					slowMs: 1500,
				},
			],
		},
		{ concurrency: 5, credits: 100_000 },
	);
});
afterAll(async () => backend.sandbox.close());

test('100 items under a 20% fault rate on every route', async () => {
	const result = await generate(
		backend.apiCredentials,
		{ prompt: '={{ $json.prompt }}', waiting: { requestTimeoutSeconds: 1 } },
		Array.from({ length: 100 }, (_, i) => ({ json: { prompt: i % 10 === 9 ? `storm ${i} [fail]` : `storm ${i}` } })),
		{ nodeOverrides: { onError: 'continueRegularOutput' } },
	);
	backend.sandbox.faults.set([]);
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(100);
	const faults = backend.sandbox.engine.log.filter((e) => e.fault).length;
	expect(faults).toBeGreaterThan(30); // about one request in five, over a few hundred requests

	let finished = 0;
	for (const [i, item] of result.items.entries()) {
		expect(item.pairedItem).toEqual({ item: i });
		if (typeof item.json.error !== 'string') {
			// No error item: then the run succeeded and its file is here.
			expect(item.json.status).toBe('SUCCEEDED');
			expect(item.json.error).toBeNull();
			expect(item.binary?.data.mimeType).toBe('image/png');
			expect(i % 10).not.toBe(9);
			finished++;
		} else {
			// A clear error: a sentence, and either what to do or the run it is about.
			expect(String(item.json.error).length).toBeGreaterThan(20);
			expect(item.json.description ?? item.json.runId).toBeDefined();
		}
	}
	expect(finished).toBeGreaterThan(60);

	// The ledger: per request key at most one run is charged; every failed run is refunded.
	const engine = backend.sandbox.engine;
	const runs = runsOf(backend.sandbox, backend.account.id);
	const byKey = new Map<string, number>();
	for (const r of runs) byKey.set(String(r.requestKey), (byKey.get(String(r.requestKey)) ?? 0) + 1);
	expect([...byKey.values()].every((n) => n === 1)).toBe(true);
	const net = (runId: string) => engine.ledger.filter((l) => l.runId === runId).reduce((s, l) => s + l.delta, 0);
	for (const r of runs) {
		engine.settle(r);
		if (r.status === 'FAILED') expect(net(r.id)).toBe(0);
		if (r.status === 'SUCCEEDED') expect(net(r.id)).toBe(-r.cost);
	}
	// 502s at submission are charged and refunded at once, with no run left behind.
	const orphan = engine.ledger.filter((l) => l.ownerId === backend.account.id && l.runId && !engine.runs.has(l.runId));
	expect(orphan.reduce((s, l) => s + l.delta, 0)).toBe(0);
	const spent = backend.charges();
	expect(spent).toBe(runs.filter((r) => r.status === 'SUCCEEDED').reduce((s, r) => s + r.cost, 0));
	// Nothing paid for and lost: every run that succeeded reached an output item with its file.
	const delivered = new Set(result.items.filter((i) => i.binary?.data).map((i) => String(i.json.id)));
	const succeeded = runs.filter((r) => r.status === 'SUCCEEDED').map((r) => r.id);
	expect(succeeded.filter((id) => !delivered.has(id))).toEqual([]);
	const errorsByKind = result.items
		.filter((i) => typeof i.json.error === 'string')
		.map((i) => String(i.json.error).slice(0, 60));
	// Failed runs ([fail]) are among the error items with their refund.
	const failedItems = result.items.filter((i) => i.json.status === 'FAILED');
	for (const f of failedItems) expect((f.json as IDataObject).refunded).toBe(5);
	expect(errorsByKind.length + finished).toBe(100);
}, 300_000);
