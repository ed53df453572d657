/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (2.40.7 and 1.123.81), pause mode where batches are not all different or the account is shared:
// identical items, the same batch again and twice at once, the time limit, two batches on a 2-slot account.
// Each item must come out with the run its own request made, charged once, its file downloaded once.
import type { Sandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import {
	charged,
	endOf,
	execution,
	executions,
	generateOutput,
	generationPosts,
	knownIds,
	nextEnded,
	runsWithPrompts,
	startBatch,
	startPauseStack,
	stopPauseStack,
	type ItemData,
	type PauseStack,
} from './pauseStack';
import { runCharges } from '../helpers/ledger';
import { untilN8n } from './shared';

/** Images on a 3-slot account (identical items, re-runs, concurrent executions). */
const IMAGES = 'mgPauseImages001';
/** Images on a 1-slot account with a 3 s time limit. */
const LIMITED = 'mgPauseLimited01';
/** Images on a 2-slot account, started twice at once. */
const SHARED = 'mgPauseShared001';
/** What the sandbox charges for one studio-image-v1 run. */
const IMAGE_CREDITS = 5;
/** n8n's wait timer runs one minute past the node's time limit (pause/pauseRuns.ts). */
const TIMER_GRACE_MS = 60_000;

let stack: PauseStack;
let sb: Sandbox;
const accounts: Record<string, Account> = {};

beforeAll(async () => {
	stack = await startPauseStack(
		(s) =>
			[3, 1, 2].map((concurrency) => {
				const account = s.engine.createAccount({ credits: 5000, concurrency });
				accounts[concurrency] = account;
				return account;
			}),
		([three, one, two]) => [
			{ id: IMAGES, account: three, kind: 'image' },
			{ id: LIMITED, account: one, kind: 'image', extra: { waiting: { timeoutMinutes: 0.05 } } },
			{ id: SHARED, account: two, kind: 'image' },
		],
	);
	sb = stack.sb;
});

afterAll(() => stopPauseStack(stack));

const same = (count: number, prompt: string) => Array.from({ length: count }, () => prompt);

/** The new executions of `workflowId` (not in `known`) once `count` of them have ended, oldest first. */
async function ended(workflowId: string, known: Set<string>, count: number) {
	const done = await untilN8n(async () => {
		const fresh = (await executions(stack, workflowId)).filter((e) => !known.has(e.id));
		const over = fresh.filter((e) => !['waiting', 'running', 'new'].includes(e.status));
		return over.length === count ? over : undefined;
	}, `${count} executions of ${workflowId} to end`);
	return done.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Each output item is the run its own request key made, for its own position in this execution: an image, one
 * charge, one download. Returns the run ids.
 */
function expectOwnRuns(executionId: string, items: ItemData[]): string[] {
	const ids = items.map((item) => String(item.json.id));
	expect(new Set(ids).size).toBe(items.length);
	for (const [i, item] of items.entries()) {
		const run = sb.engine.runs.get(String(item.json.id))!;
		expect(item.json.status).toBe('SUCCEEDED');
		expect(item.binary?.data.mimeType).toMatch(/^image\//);
		expect(run.requestKey).toBe(item.json.requestKey);
		expect(run.webhookUrl).toMatch(new RegExp(`/${executionId}\\?.*mgItem=${i}$`));
		expect(runCharges(sb, run.id)).toHaveLength(1);
		// The output is built once: each run's file downloaded once, by the one call that resumed.
		expect(sb.engine.outputDownloads.get(run.id)).toBe(1);
	}
	return ids;
}

describe('identical requests in one batch: a run of its own for every item', () => {
	test.each([8, 20])('%i identical images on 3 slots', async (count) => {
		const prompts = same(count, `the same picture ${count}`);
		const before = charged(sb, accounts[3]);
		const posts = generationPosts(sb);
		const known = await knownIds(stack, IMAGES);
		await startBatch(stack, IMAGES, prompts);
		const done = await nextEnded(stack, IMAGES, known);
		expect(done.status).toBe('success');
		const ids = expectOwnRuns(done.id, await generateOutput(stack, done.id));
		expect(
			runsWithPrompts(sb, prompts)
				.map((r) => r.id)
				.sort(),
		).toEqual([...ids].sort());
		expect(charged(sb, accounts[3]) - before).toBe(IMAGE_CREDITS * count);
		const perItem = (generationPosts(sb) - posts) / count;
		console.log(`real n8n, ${count} identical images: ${perItem} POSTs per item`);
		expect(perItem).toBeLessThanOrEqual(1.2);
	});
});

test('the same batch again right after, and two executions of it at once: each gets only its own runs', async () => {
	const prompts = ['cat', 'dog', 'cat', 'owl', 'cat'].map((p) => `a ${p} again`);
	const before = charged(sb, accounts[3]);
	const known = await knownIds(stack, IMAGES);
	await startBatch(stack, IMAGES, prompts);
	const [first] = await ended(IMAGES, known, 1);
	// Started again as soon as n8n lists the first as ended.
	await startBatch(stack, IMAGES, prompts);
	const [, again] = await ended(IMAGES, known, 2);
	await Promise.all([startBatch(stack, IMAGES, prompts), startBatch(stack, IMAGES, prompts)]);
	const all = await ended(IMAGES, known, 4);
	expect(all.map((e) => e.id).slice(0, 2)).toEqual([first.id, again.id]);
	const keys: string[] = [];
	const ids: string[] = [];
	for (const e of all) {
		expect(e.status).toBe('success');
		const items = await generateOutput(stack, e.id);
		expect(items.map((i) => i.json.prompt)).toEqual(prompts);
		ids.push(...expectOwnRuns(e.id, items));
		keys.push(...items.map((i) => String(i.json.requestKey)));
	}
	expect(new Set(ids).size).toBe(20);
	expect(new Set(keys).size).toBe(20);
	expect(runsWithPrompts(sb, prompts)).toHaveLength(20);
	expect(charged(sb, accounts[3]) - before).toBe(20 * IMAGE_CREDITS);
});

test('nothing is submitted after the time limit; items never sent come out uncharged', async () => {
	const prompts = same(4, 'one at a time');
	const known = await knownIds(stack, LIMITED);
	await startBatch(stack, LIMITED, prompts);
	const waiting = await untilN8n(
		async () => (await executions(stack, LIMITED)).find((e) => !known.has(e.id) && e.status === 'waiting'),
		'the limited batch to wait',
	);
	const waitTill = await untilN8n(
		async () => (await execution(stack, waiting.id)).waitTill ?? undefined,
		'its wait time',
	);
	const limit = new Date(waitTill).getTime() - TIMER_GRACE_MS;
	const done = await endOf(stack, LIMITED, waiting.id);
	expect(done.status).toBe('success');
	const items = await generateOutput(stack, done.id);
	const charges = sb.engine.ledger.filter((l) => l.ownerId === accounts[1].id && l.reason === 'charge');
	for (const charge of charges) expect(charge.at).toBeLessThanOrEqual(limit);
	for (const run of runsWithPrompts(sb, prompts)) expect(run.createdAt).toBeLessThanOrEqual(limit);
	const unsent = items.filter((i) => i.json.status === 'NOT_SUBMITTED');
	expect(unsent.length).toBeGreaterThan(0);
	for (const item of unsent) expect(item.json).toMatchObject({ timedOut: true, requestKey: expect.any(String) });
	expect(charged(sb, accounts[1])).toBe(IMAGE_CREDITS * runsWithPrompts(sb, prompts).length);
	expect(runsWithPrompts(sb, prompts).length + unsent.length).toBe(4);
	console.log(`real n8n, 3 s limit on 1 slot: ${charges.length} of 4 submitted before it, ${unsent.length} not sent`);
});

test("two batches on one 2-slot account finish without waiting on the service's retries", async () => {
	const left = same(5, 'left batch');
	const right = same(5, 'right batch');
	const known = await knownIds(stack, SHARED);
	const started = Date.now();
	await Promise.all([startBatch(stack, SHARED, left), startBatch(stack, SHARED, right)]);
	const both = await ended(SHARED, known, 2);
	const wallMs = Date.now() - started;
	for (const e of both) {
		expect(e.status).toBe('success');
		const items = await generateOutput(stack, e.id);
		expectOwnRuns(e.id, items);
	}
	expect(charged(sb, accounts[2])).toBe(10 * IMAGE_CREDITS);
	const deliveries = sb.engine.webhooks.deliveries.filter((d) => both.some((e) => d.url.includes(`/${e.id}?`)));
	expect(deliveries).toHaveLength(10);
	const statuses = deliveries.flatMap((d) => d.attempts.map((a) => a.status));
	const retried = deliveries.filter((d) => d.attempts.length > 1).length;
	// The service would come back to a 503 after 1 minute, 5 minutes, … (0.6 s, 3 s here): none is answered 503.
	expect(statuses.filter((s) => s === 503)).toEqual([]);
	const conflicts = statuses.filter((s) => s === 409).length;
	// A batch with no run in flight asks for a slot itself (after 1 s, backing off): each refusal is one such wait.
	const busy = sb.engine.log.filter(
		(e) => e.ownerId === accounts[2].id && e.method === 'POST' && e.path === '/v1/generations' && e.status === 409,
	).length;
	console.log(
		`real n8n, two 5-image pause batches on 2 slots: ${wallMs} ms (ideal 9000 ms: 10 × 1.8 s / 2), ` +
			`resume calls answered 503: 0, 409: ${conflicts}, deliveries retried: ${retried} of 10, ` +
			`submissions answered busy: ${busy}`,
	);
});
