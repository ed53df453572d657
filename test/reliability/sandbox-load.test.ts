// Sandbox under load: two concurrent clients making 500 requests each lose no run and leave the
// ledger balanced.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { until } from '../helpers/until';
import { runsOf } from '../helpers/world';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({
		durations: { pendingMs: 10, image: 40, video: 40, music: 40 },
		rateLimits: {
			submitPerIdentity: 100_000,
			submitPerAddress: 100_000,
			readPerIdentity: 100_000,
			readPerAddress: 100_000,
			uploadPerIdentity: 100_000,
		},
	});
});
afterAll(async () => sb.close());

async function client(
	key: string,
	seed: number,
): Promise<{ accepted: Set<string>; keys: Map<string, string>; statuses: number[] }> {
	const accepted = new Set<string>();
	const keys = new Map<string, string>();
	const statuses: number[] = [];
	const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
	const inFlight: Array<Promise<void>> = [];
	for (let i = 0; i < 500; i++) {
		const kind = (i * 7 + seed) % 5;
		const task = (async () => {
			let res: Response;
			if (kind <= 1) {
				const requestKey = `k-${seed}-${i % 150}`; // repeats: the same key must return the same run
				res = await fetch(`${sb.baseUrl}/generations`, {
					method: 'POST',
					headers: h,
					body: JSON.stringify({
						kind: 'image',
						model: 'studio-image-v1',
						prompt: i % 11 === 0 ? 'x [fail]' : `load ${i}`,
						options: { resolution: '1K' },
						requestKey,
					}),
				});
				const body = (await res.json()) as { generation?: { id: string } };
				if (res.status === 202 && body.generation) {
					accepted.add(body.generation.id);
					const prior = keys.get(requestKey);
					if (prior && prior !== body.generation.id) throw new Error(`key ${requestKey} gave two runs`);
					keys.set(requestKey, body.generation.id);
				}
			} else if (kind === 2) {
				res = await fetch(`${sb.baseUrl}/generations?limit=100`, { headers: h });
				await res.text();
			} else if (kind === 3) {
				res = await fetch(`${sb.baseUrl}/me`, { headers: h });
				await res.text();
			} else {
				const id = [...accepted][i % Math.max(1, accepted.size)] ?? 'gen_none';
				res = await fetch(`${sb.baseUrl}/generations/${id}`, { headers: h });
				await res.text();
			}
			statuses.push(res.status);
		})();
		inFlight.push(task);
		if (inFlight.length >= 8) await Promise.all(inFlight.splice(0));
	}
	await Promise.all(inFlight);
	return { accepted, keys, statuses };
}

test('two concurrent clients × 500 requests: no run lost, ledger balanced', async () => {
	const a = sb.engine.createAccount({ credits: 100_000, concurrency: 1000 });
	const b = sb.engine.createAccount({ credits: 100_000, concurrency: 1000 });
	const [ra, rb] = await Promise.all([client(a.keys[0], 1), client(b.keys[0], 2)]);
	const { engine } = sb;
	await until(() => [...engine.runs.values()].every((r) => !engine.isActive(engine.settle(r))), 'every run to end');
	for (const [account, result] of [
		[a, ra],
		[b, rb],
	] as const) {
		expect(result.statuses).toHaveLength(500);
		expect(result.statuses.every((s) => [200, 202, 404].includes(s))).toBe(true);
		const mine = runsOf(sb, account.id);
		// Every accepted run exists, and every run was accepted once per key.
		for (const id of result.accepted) expect(sb.engine.runs.get(id)?.ownerId).toBe(account.id);
		expect(mine).toHaveLength(result.keys.size);
		mine.forEach((r) => sb.engine.settle(r));
		const ledger = sb.engine.ledger.filter((l) => l.ownerId === account.id);
		const net = ledger.reduce((s, l) => s + l.delta, 0);
		expect(net).toBe(sb.engine.balanceOf(account.id));
		const succeeded = mine.filter((r) => r.status === 'SUCCEEDED').reduce((s, r) => s + r.cost, 0);
		expect(sb.engine.balanceOf(account.id)).toBe(100_000 - succeeded);
	}
}, 120_000);
