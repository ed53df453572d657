// Processes dying under a 20-image batch in queue mode (issue 54; part of queue.e2e.ts): a worker killed (SIGKILL)
// while a paused batch waits for its runs, the webhook process restarted while deliveries arrive, and main restarted,
// in pause mode and (for the restarts) in Poll; a worker killed under a Poll batch is sigkill.ts. Each case ends with
// the execution finished, every item's file or an error naming its run, and by the sandbox's ledger every run
// charged once and none paid for without reaching an item. Restarts are n8n's graceful stop (SIGTERM), as a rolling
// update does; the time each case cost is kept in the figures.
import type { QueueStack } from '../../scripts/queueStack';
import { ownerSession } from '../../scripts/realN8n';
import type { Sandbox } from '../../sandbox/server';
import {
	chargesOfRuns,
	DYING_PROMPTS,
	execution,
	executionsOf,
	HOOK_PATHS,
	IDS,
	outputOf,
	postHook,
	runsOfExecution,
	settledExecutions,
	workerOf,
	type ExecutionSummary,
} from './helpers';
import { untilN8n } from '../e2e/shared';

export const dyingFigures: Record<string, unknown> = {};

type Ctx = () => { stack: QueueStack; cookie: string };

/** Deliveries the sandbox has made (answered 2xx) for the runs of an execution. */
const deliveredFor = (sb: Sandbox, executionId: string) => {
	const ids = new Set(runsOfExecution(sb, executionId).map((r) => r.id));
	return sb.engine.webhooks.deliveries.filter((d) => d.runId && ids.has(d.runId) && d.delivered).length;
};

/** Starts the workflow through its webhook and returns its new execution once `ready` holds for it. */
async function startUntil(
	ctx: Ctx,
	workflowId: string,
	hookPath: string,
	ready: (e: ExecutionSummary) => boolean,
	what: string,
): Promise<{ id: string; before: Set<string>; startedAt: number }> {
	const { stack, cookie } = ctx();
	const before = new Set((await executionsOf(stack.main, cookie, workflowId)).map((e) => e.id));
	const startedAt = Date.now();
	expect(await postHook(stack, hookPath)).toBe(200);
	const id = await untilN8n(
		async () => (await executionsOf(stack.main, cookie, workflowId)).find((e) => !before.has(e.id) && ready(e))?.id,
		what,
		120_000,
	);
	return { id, before, startedAt };
}

/**
 * The ledger's verdict on a finished batch: its execution ended `success`; each item is its prompt's file, or an
 * error naming its run; one run per item, each charged once; no charged run missing from the output.
 */
async function expectNothingLost(stack: QueueStack, cookie: string, executionId: string) {
	const sb = stack.sandbox;
	const detail = await execution(stack.main, cookie, executionId);
	expect({ status: detail.status, error: detail.error?.message }).toEqual({ status: 'success', error: undefined });
	const items = outputOf(detail, 'Generate Images');
	expect(items.map((i) => i.json.prompt)).toEqual(DYING_PROMPTS);
	const runIdOf = (json: Record<string, unknown>) => String(json.id ?? json.runId ?? '');
	for (const { json, binary } of items) {
		if (json.status === 'SUCCEEDED') expect(binary?.data?.mimeType).toBe('image/png');
		else expect(String(json.error)).toContain(runIdOf(json));
	}
	const runs = runsOfExecution(sb, executionId);
	expect(new Set(runs.map((r) => r.requestKey)).size).toBe(DYING_PROMPTS.length);
	expect(runs).toHaveLength(DYING_PROMPTS.length);
	const charges = chargesOfRuns(sb, runs);
	expect(new Set(charges.map((c) => c.runId)).size).toBe(charges.length);
	const shown = new Set(items.map((i) => runIdOf(i.json)));
	expect(runs.filter((r) => !shown.has(r.id)).map((r) => r.id)).toEqual([]);
	const created = runs.map((r) => r.createdAt).sort((a, b) => a - b);
	return {
		runs: runs.length,
		charges: charges.length,
		succeeded: items.filter((i) => i.json.status === 'SUCCEEDED').length,
		/** From the first run to the last one sent: how long the runs themselves were held up. */
		sendingSeconds: Math.round((created[created.length - 1] - created[0]) / 1000),
	};
}

async function finish(ctx: Ctx, workflowId: string, started: { id: string; before: Set<string>; startedAt: number }) {
	const { stack } = ctx();
	// After a restart of main the session may be new: sign in again.
	const cookie = await ownerSession(stack.main);
	await settledExecutions(stack.main, cookie, workflowId, started.before.size + 1, 300_000);
	const figures = await expectNothingLost(stack, cookie, started.id);
	return { execution: started.id, seconds: Math.round((Date.now() - started.startedAt) / 1000), ...figures };
}

const waitingWithDeliveries = (sb: Sandbox, count: number) => (e: ExecutionSummary) =>
	e.status === 'waiting' && deliveredFor(sb, e.id) >= count;
const submittingRuns = (sb: Sandbox, count: number) => (e: ExecutionSummary) =>
	e.status === 'running' && runsOfExecution(sb, e.id).length >= count;

export function dyingTests(ctx: Ctx): void {
	// The spec's 20 submissions a minute would make each batch a minute long whatever dies; lifted here, with 3-second
	// images, a batch takes about 20 s: long enough to kill or restart a process in its middle.
	const saved: Partial<Pick<Sandbox['config'], 'rateLimits' | 'durations'>> = {};
	beforeAll(() => {
		const { config } = ctx().stack.sandbox;
		Object.assign(saved, { rateLimits: config.rateLimits, durations: config.durations });
		config.rateLimits = { ...config.rateLimits, submitPerIdentity: 1e6, submitPerAddress: 1e6 };
		config.durations = { ...config.durations, image: 3000 };
	});
	afterAll(() => Object.assign(ctx().stack.sandbox.config, saved));
	const startPaused = (delivered: number) =>
		startUntil(
			ctx,
			IDS.dyingPause,
			HOOK_PATHS.dyingPause,
			waitingWithDeliveries(ctx().stack.sandbox, delivered),
			`the paused batch to wait with ${delivered} runs delivered`,
		);
	const startPoll = (submitted: number) =>
		startUntil(
			ctx,
			IDS.dyingPoll,
			HOOK_PATHS.dyingPoll,
			submittingRuns(ctx().stack.sandbox, submitted),
			`the Poll batch to submit its first ${submitted} runs`,
		);

	// What the same batches take when nothing dies: the time each case below cost is its figure less this one.
	test.each([
		['pause', IDS.dyingPause, HOOK_PATHS.dyingPause, 'pauseNothingDies'],
		['Poll', IDS.dyingPoll, HOOK_PATHS.dyingPoll, 'pollNothingDies'],
	])('%s: the batch when nothing dies (the time the cases below are measured against)', async (_, id, hook, fig) => {
		const started = await startUntil(ctx, id, hook, () => true, 'the batch to start');
		dyingFigures[fig] = await finish(ctx, id, started);
	});

	test('pause: the worker that sent the first runs killed (SIGKILL) while the batch waits; nothing lost', async () => {
		const { stack } = ctx();
		const started = await startPaused(2);
		const worker = workerOf(stack, started.id)!;
		expect(worker).toMatch(/^worker\d$/);
		await stack.stop(worker, 'SIGKILL');
		try {
			dyingFigures.pauseWorkerKilled = { worker, ...(await finish(ctx, IDS.dyingPause, started)) };
		} finally {
			await stack.start(worker);
		}
	});

	test('pause: the webhook process restarted while deliveries arrive; the missed ones come again; nothing lost', async () => {
		const { stack } = ctx();
		const sb = stack.sandbox;
		const started = await startPaused(3);
		const attemptsBefore = sb.engine.webhooks.deliveries.flatMap((d) => d.attempts).length;
		await stack.stop('webhook');
		// A delivery made while the webhook process is down (refused): the service tries it again later.
		const refused = () =>
			sb.engine.webhooks.deliveries
				.flatMap((d) => d.attempts)
				.slice(attemptsBefore)
				.filter((a) => a.status === null || a.status >= 500).length;
		await untilN8n(() => refused() > 0, 'a delivery to reach the stopped webhook process', 60_000);
		await stack.start('webhook', 'webhook');
		dyingFigures.pauseWebhookRestarted = {
			refusedWhileDown: refused(),
			...(await finish(ctx, IDS.dyingPause, started)),
		};
	});

	test('pause: main restarted while deliveries arrive; nothing lost', async () => {
		const { stack } = ctx();
		const sb = stack.sandbox;
		const started = await startPaused(3);
		const delivered = deliveredFor(sb, started.id);
		await stack.stop('main');
		await untilN8n(() => deliveredFor(sb, started.id) > delivered, 'a delivery while main is down', 60_000);
		await stack.start('main', 'main');
		dyingFigures.pauseMainRestarted = {
			deliveredWhileDown: deliveredFor(sb, started.id) - delivered,
			...(await finish(ctx, IDS.dyingPause, started)),
		};
	});

	test.each([
		['the webhook process', 'webhook', 'pollWebhookRestarted'],
		['main', 'main', 'pollMainRestarted'],
	] as const)('Poll: %s restarted while a worker runs the batch; nothing lost', async (_, name, fig) => {
		const { stack } = ctx();
		const started = await startPoll(3);
		await stack.stop(name);
		await stack.start(name, name);
		dyingFigures[fig] = await finish(ctx, IDS.dyingPoll, started);
	});
}
