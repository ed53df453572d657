/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n (2.40.7 and 1.123.81), pause mode: a published workflow (Webhook → Split Out → Generate with Waiting → Pause)
// lets go of its execution while the sandbox's video runs go on (n8n lists it as waiting, nothing runs),
// and the sandbox's signed deliveries to n8n's /webhook-waiting resume it with every item's MP4.
// n8n stopped while the runs finish: the service's retries resume it after the restart, charged once.
import type { Account } from '../../sandbox/types';
import {
	charged as chargedTo,
	execution,
	executions as executionsOf,
	generateOutput as outputOf,
	generationPosts,
	restartN8n,
	runsWithPrompts,
	startBatch,
	startPauseStack,
	stopPauseStack,
	storedRuns as storedRunsOf,
	type PauseStack,
} from './pauseStack';
import { postSigned } from '../helpers/signing';
import { untilN8n } from './shared';

const WORKFLOW_ID = 'mgPauseBatch0001';
/** The same batch with a signing-secret credential that does not match the account's, and a 3 s time limit. */
const WRONG_SECRET_ID = 'mgPauseWrongSec1';
let stack: PauseStack;
let account: Account;

const executions = (workflowId = WORKFLOW_ID) => executionsOf(stack, workflowId);
const generateOutput = (id: string) => outputOf(stack, id);
const storedRuns = (id: string) => storedRunsOf(stack, id);
const start = (prompts: string[], workflowId = WORKFLOW_ID) => startBatch(stack, workflowId, prompts);
const charged = () => chargedTo(stack.sb, account);
const runsWith = (prompts: string[]) => runsWithPrompts(stack.sb, prompts);

beforeAll(async () => {
	stack = await startPauseStack(
		(sb) => [(account = sb.engine.createAccount({ credits: 5000, concurrency: 3 }))],
		([own]) => [
			{ id: WORKFLOW_ID, account: own },
			{ id: WRONG_SECRET_ID, account: own, wrongSecret: true, extra: { waiting: { timeoutMinutes: 0.05 } } },
		],
	);
});

afterAll(() => stopPauseStack(stack));

test('5 videos on 3 slots: the execution waits with nothing running, then finishes with 5 MP4s, 5 charges', async () => {
	const prompts = Array.from({ length: 5 }, (_, i) => `pause video ${i}`);
	const before = charged();
	await start(prompts);
	const waiting = await untilN8n(
		async () => (await executions()).find((e) => e.status === 'waiting'),
		'a waiting execution',
	);
	// While the runs are in progress: waiting, and no execution running.
	const inProgress = () =>
		runsWith(prompts)
			.map((r) => stack.sb.engine.settle(r))
			.some((r) => r.status === 'PROCESSING');
	await untilN8n(async () => (inProgress() ? true : undefined), 'runs in progress');
	const during = await executions();
	expect(during.find((e) => e.id === waiting.id)?.status).toBe('waiting');
	expect(during.filter((e) => e.status === 'running')).toEqual([]);
	const done = await untilN8n(async () => {
		const e = (await executions()).find((x) => x.id === waiting.id);
		return e && e.status !== 'waiting' && e.status !== 'running' ? e : undefined;
	}, 'the execution to finish');
	expect(done.status).toBe('success');
	const items = await generateOutput(done.id);
	expect(items.map((i) => i.json.prompt)).toEqual(prompts);
	for (const item of items) {
		expect(item.json.status).toBe('SUCCEEDED');
		expect(item.binary?.data.mimeType).toBe('video/mp4');
	}
	expect(charged() - before).toBe(5 * 20);
	expect(runsWith(prompts)).toHaveLength(5);
});

test("n8n stopped while the execution waits: the service's retries resume it after the restart; nothing charged twice", async () => {
	const prompts = ['restart video 0', 'restart video 1', 'restart video 2'];
	const before = charged();
	const known = new Set((await executions()).map((e) => e.id));
	await start(prompts);
	const waiting = await untilN8n(
		async () => (await executions()).find((e) => e.status === 'waiting' && !known.has(e.id)),
		'a new waiting execution',
	);
	// The list shows "waiting" a moment before n8n has saved the execution's data: stop it only once the
	// waiting step's run is stored (stopping in between is a crash while saving, which this test is not about).
	await untilN8n(async () => ((await storedRuns(waiting.id)) ? true : undefined), 'the waiting execution to be saved');
	await restartN8n(stack, async () => {
		// The runs finish while n8n is down; their first deliveries fail.
		await untilN8n(async () => {
			const runs = runsWith(prompts);
			for (const r of runs) stack.sb.engine.settle(r);
			const failedFirst = stack.sb.engine.webhooks.deliveries.filter(
				(d) => runs.some((r) => r.id === d.runId) && d.attempts.length >= 1 && !d.delivered,
			);
			return runs.length === 3 && runs.every((r) => r.status === 'SUCCEEDED') && failedFirst.length >= 1
				? true
				: undefined;
		}, 'every run finished with a failed delivery');
	});
	const done = await untilN8n(
		async () => {
			const e = (await executions()).find((x) => x.id === waiting.id);
			return e && e.status !== 'waiting' && e.status !== 'running' ? e : undefined;
		},
		'the execution to resume after the restart',
		180_000,
	).catch((error: Error) => {
		// What the service was answered, and what n8n said: enough to tell a refusal from a lost delivery.
		const runs = runsWith(prompts);
		const tried = stack.sb.engine.webhooks.deliveries
			.filter((d) => runs.some((r) => r.id === d.runId))
			.map((d) => ({ run: d.runId, attempts: d.attempts.map((a) => a.status), delivered: d.delivered }));
		const log = stack.n8n.log.join('').slice(-4000);
		throw new Error(`${error.message}\ndeliveries: ${JSON.stringify(tried)}\nn8n log:\n${log}`);
	});
	expect(done.status).toBe('success');
	const items = await generateOutput(done.id);
	expect(items.map((i) => i.json.prompt)).toEqual(prompts);
	expect(items.every((i) => i.binary?.data.mimeType === 'video/mp4')).toBe(true);
	expect(charged() - before).toBe(3 * 20);
	expect(runsWith(prompts)).toHaveLength(3);
});

test('replayed deliveries, and one signed with another secret, resume nothing; a failed run fails the execution, naming the run and its refund', async () => {
	const prompts = ['quick one', 'slow one [stuck]'];
	const known = new Set((await executions()).map((e) => e.id));
	await start(prompts);
	const waiting = await untilN8n(
		async () => (await executions()).find((e) => e.status === 'waiting' && !known.has(e.id)),
		'a new waiting execution',
	);
	const quick = await untilN8n(async () => {
		const run = runsWith(['quick one'])[0];
		return stack.sb.engine.webhooks.deliveries.find((d) => d.runId === run?.id && d.delivered);
	}, "the quick run's delivery");
	// Replayed by the service (a resend): answered, and still waiting for the stuck run. A resume it started
	// wrongly (after its answer) would end the execution before the stuck run fails: the end below names that failure.
	const attempts = quick.attempts.length;
	stack.sb.engine.webhooks.resend(quick.id);
	await untilN8n(() => quick.attempts.length > attempts, 'the resend to be answered');
	expect((await executions()).find((e) => e.id === waiting.id)?.status).toBe('waiting');
	// Replayed with another signature (right URL and token): a wake-up call. The run it names reads back as
	// finished, which the batch knew already, so it is taken (200) and changes nothing.
	const forged = await postSigned(quick.url, Buffer.alloc(24, 9), 'msg_forged', quick.body);
	expect(forged.status).toBe(200);
	expect((await executions()).find((e) => e.id === waiting.id)?.status).toBe('waiting');
	// The stuck run fails after the service's 30 minutes (18 s here) and is refunded: the execution fails, naming it.
	const done = await untilN8n(async () => {
		const e = (await executions()).find((x) => x.id === waiting.id);
		return e && e.status !== 'waiting' && e.status !== 'running' ? e : undefined;
	}, 'the execution to end');
	expect(done.status).toBe('error');
	const stuck = runsWith(['slow one [stuck]'])[0];
	const details = { data: { data: (await execution(stack, done.id)).raw } };
	expect(details.data.data).toContain(`Run ${stuck.id} failed`);
	expect(details.data.data).toMatch(/credits were refunded automatically/);
});

test('6 identical videos: 6 runs, each item its own file, one charge and one download each', async () => {
	const prompts = Array.from({ length: 6 }, () => 'the very same video');
	const before = charged();
	const posts = generationPosts(stack.sb);
	const known = new Set((await executions()).map((e) => e.id));
	await start(prompts);
	const done = await untilN8n(async () => {
		const e = (await executions()).find((x) => !known.has(x.id) && x.status !== 'waiting' && x.status !== 'running');
		return e && e.status !== 'new' ? e : undefined;
	}, 'the identical batch to finish');
	expect(done.status).toBe('success');
	const items = await generateOutput(done.id);
	const ids = items.map((i) => String(i.json.id));
	expect(new Set(ids).size).toBe(6);
	for (const [i, item] of items.entries()) {
		const run = stack.sb.engine.runs.get(String(item.json.id))!;
		expect(run.requestKey).toBe(item.json.requestKey);
		expect(run.webhookUrl).toMatch(new RegExp(`/${done.id}\\?.*mgItem=${i}$`));
		expect(stack.sb.engine.outputDownloads.get(run.id)).toBe(1);
	}
	expect(charged() - before).toBe(6 * 20);
	const sent = generationPosts(stack.sb) - posts;
	expect(sent / 6).toBeLessThanOrEqual(1.2);
});

test('deliveries failing the signature check: each run is read back and taken, with one warning', async () => {
	const prompts = ['signed with the account secret'];
	const before = charged();
	await start(prompts, WRONG_SECRET_ID);
	const done = await untilN8n(async () => {
		const e = (await executions(WRONG_SECRET_ID))[0];
		return e && e.status !== 'waiting' && e.status !== 'running' && e.status !== 'new' ? e : undefined;
	}, 'the execution to end');
	expect(done.status).toBe('success');
	const items = await generateOutput(done.id);
	expect(items).toHaveLength(1);
	expect(items[0].binary?.data?.mimeType).toBe('video/mp4');
	expect(String(items[0].json.warning)).toMatch(/^1 delivery to this step failed the signature check/);
	expect(stack.n8n.log.join('')).toMatch(new RegExp(`waiting execution ${done.id} failed the signature check`));
	expect(charged() - before).toBe(20);
});

test("deliveries that never come: n8n's timer ends the wait, with an outcome per item", async () => {
	const prompts = ['never heard of', 'never heard of either'];
	// The service cannot reach n8n: its deliveries for these runs go to a closed port.
	const send = stack.sb.engine.webhooks.send.bind(stack.sb.engine.webhooks);
	stack.sb.engine.webhooks.send = (target, msgId, body, runId) => {
		const lost = runsWith(prompts).some((r) => r.id === runId);
		return send(lost ? { ...target, url: 'http://127.0.0.1:9/unreachable' } : target, msgId, body, runId);
	};
	try {
		const known = new Set((await executions(WRONG_SECRET_ID)).map((e) => e.id));
		await start(prompts, WRONG_SECRET_ID);
		const done = await untilN8n(
			async () => {
				const e = (await executions(WRONG_SECRET_ID)).find((x) => !known.has(x.id));
				return e && !['waiting', 'running', 'new'].includes(e.status) ? e : undefined;
			},
			'the wait timer to end the execution',
			180_000,
		);
		expect(done.status).toBe('success');
		const items = await generateOutput(done.id);
		expect(items).toHaveLength(2);
		for (const item of items) {
			expect(String(item.json.error)).toMatch(/^The time limit passed and no delivery from the service ended/);
			expect(item.json).toMatchObject({ timedOut: true, runId: expect.stringMatching(/^gen_/) });
			expect(item.json.prompt).toBeUndefined();
		}
	} finally {
		stack.sb.engine.webhooks.send = send;
	}
});
