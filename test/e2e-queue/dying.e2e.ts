/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Processes dying under a 20-image batch in queue mode (issue 54), on n8n's main 2.x: main, 2 workers and 1 webhook
// process, Redis and Postgres (`npm run bench -- dying` runs the same cases under 300 images, which would take
// .ci/run past its time; .ci/run runs this file beside the browser suite). A worker killed (SIGKILL)
// while a batch runs, the webhook process restarted while deliveries arrive, and main restarted, in pause mode and in
// Poll. Each case ends with the execution finished (for Poll on a killed worker: n8n fails it and runs nothing again,
// and the same call again finishes the batch), every item's file or an error naming its run, and by the sandbox's
// ledger every run charged once and none paid for without reaching an item. The Poll batch's Request Key comes from
// the data (the caller's batch id), as the docs advise. Restarts are n8n's graceful stop (SIGTERM), as a rolling
// update does; the time each case cost is kept in the figures.
import type { QueueStack } from '../../scripts/queueStack';
import { ownerSession } from '../../scripts/realN8n';
import type { Sandbox } from '../../sandbox/server';
import type { Run } from '../../sandbox/types';
import {
	bootWithOwner,
	chargesOfRuns,
	DYING_ITEMS,
	DYING_PROMPTS,
	execution,
	executionsOf,
	HOOK_PATHS,
	IDS,
	outputOf,
	postHook,
	queueWorkflows,
	runsKeyed,
	runsOfExecution,
	settledExecutions,
	workerOf,
	type ExecutionSummary,
} from './helpers';
import { untilN8n } from '../e2e/shared';

let stack: QueueStack;
let cookie = '';
/** What each case took (seconds, runs, charges), printed at the end. */
const figures: Record<string, unknown> = {};

/**
 * How long a batch may take to end: the account runs 3 images of 3 s at once, so 300 images take 5 minutes when
 * nothing dies; a restart and n8n's recovery add a few more. A test may take that and the start besides.
 */
const BATCH_MS = 300_000 + DYING_ITEMS * 3_000;
const TEST_MS = BATCH_MS + 180_000;

beforeAll(async () => {
	const dying = new Set<unknown>([IDS.dyingPause, IDS.dyingPoll]);
	({ stack, cookie } = await bootWithOwner(
		{
			workflows: (root) => queueWorkflows(root).filter((w) => dying.has(w.id)),
			activate: [IDS.dyingPause, IDS.dyingPoll],
		},
		figures,
	));
	// The spec's 20 submissions a minute would make each batch a minute long whatever dies; lifted here, with
	// 3-second images, a 20-image batch takes about 20 s: long enough to kill or restart a process in its middle.
	const { config, engine } = stack.sandbox;
	config.rateLimits = { ...config.rateLimits, submitPerIdentity: 1e6, submitPerAddress: 1e6 };
	config.durations = { ...config.durations, image: 3000 };
	// Eight batches at up to 50 credits an image.
	engine.setCredits(stack.accountId, DYING_ITEMS * 8 * 50);
});

afterAll(async () => {
	console.log(`queue-mode figures, processes dying:\n${JSON.stringify(figures, null, 2)}`);
	if (stack) await stack.shutdown();
});

/** Deliveries the sandbox has made (answered 2xx) for the runs of an execution. */
const deliveredFor = (sb: Sandbox, executionId: string) => {
	const ids = new Set(runsOfExecution(sb, executionId).map((r) => r.id));
	return sb.engine.webhooks.deliveries.filter((d) => d.runId && ids.has(d.runId) && d.delivered).length;
};

/** A batch started: its execution, the executions before it, when it was started, its body and its runs. */
interface Started {
	id: string;
	before: Set<string>;
	startedAt: number;
	body: Record<string, unknown>;
	runs: () => Run[];
}

/** Starts the workflow through its webhook with `body` and returns its new execution once `ready` holds for it. */
async function startUntil(
	workflowId: string,
	hookPath: string,
	body: Record<string, unknown>,
	ready: (e: ExecutionSummary) => boolean,
	what: string,
): Promise<Omit<Started, 'runs'>> {
	const before = new Set((await executionsOf(stack.main, cookie, workflowId)).map((e) => e.id));
	const startedAt = Date.now();
	expect(await postHook(stack, hookPath, body)).toBe(200);
	const id = await untilN8n(
		async () => (await executionsOf(stack.main, cookie, workflowId)).find((e) => !before.has(e.id) && ready(e))?.id,
		what,
		120_000,
	);
	return { id, before, startedAt, body };
}

/**
 * The ledger's verdict on a finished batch: its execution ended `success`; each item is its prompt's file, or an
 * error naming its run; one run per item, each charged once; no charged run missing from the output.
 */
async function expectNothingLost(stack: QueueStack, cookie: string, executionId: string, batchRuns: () => Run[]) {
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
	const runs = batchRuns();
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

async function finish(workflowId: string, started: Started) {
	// After a restart of main the session may be new: sign in again.
	const cookie = await ownerSession(stack.main);
	await settledExecutions(stack.main, cookie, workflowId, started.before.size + 1, BATCH_MS);
	const figures = await expectNothingLost(stack, cookie, started.id, started.runs);
	return { execution: started.id, seconds: Math.round((Date.now() - started.startedAt) / 1000), ...figures };
}

const waitingWithDeliveries = (sb: Sandbox, count: number) => (e: ExecutionSummary) =>
	e.status === 'waiting' && deliveredFor(sb, e.id) >= count;
const submittingRuns = (runs: () => Run[], count: number) => (e: ExecutionSummary) =>
	e.status === 'running' && runs().length >= count;

describe(`processes dying under a ${DYING_ITEMS}-image batch`, () => {
	const startPaused = async (delivered: number): Promise<Started> => {
		const sb = stack.sandbox;
		const ready = delivered ? waitingWithDeliveries(sb, delivered) : () => true;
		const what = `the paused batch to wait with ${delivered} runs delivered`;
		const started = await startUntil(IDS.dyingPause, HOOK_PATHS.dyingPause, {}, ready, what);
		return { ...started, runs: () => runsOfExecution(sb, started.id) };
	};
	/** A Poll batch under a new batch id (its Request Keys), once `submitted` of its runs are sent. */
	const startPoll = async (submitted: number): Promise<Started> => {
		const sb = stack.sandbox;
		const batchId = `dying-${Date.now().toString(36)}`;
		const runs = () => runsKeyed(sb, `${batchId}-`);
		const ready = submitted ? submittingRuns(runs, submitted) : () => true;
		const what = `the Poll batch to submit its first ${submitted} runs`;
		return { ...(await startUntil(IDS.dyingPoll, HOOK_PATHS.dyingPoll, { batchId }, ready, what)), runs };
	};

	// What the same batches take when nothing dies: the time each case below cost is its figure less this one.
	test.each([
		['pause', IDS.dyingPause, () => startPaused(0), 'pauseNothingDies'],
		['Poll', IDS.dyingPoll, () => startPoll(0), 'pollNothingDies'],
	] as const)(
		'%s: the batch when nothing dies (the time the cases below are measured against)',
		async (_, id, start, fig) => {
			figures[fig] = await finish(id, await start());
		},
		TEST_MS,
	);

	test(
		'pause: the worker that sent the first runs killed (SIGKILL) while the batch waits; nothing lost',
		async () => {
			const started = await startPaused(2);
			const worker = workerOf(stack, started.id)!;
			expect(worker).toMatch(/^worker\d$/);
			await stack.stop(worker, 'SIGKILL');
			try {
				figures.pauseWorkerKilled = { worker, ...(await finish(IDS.dyingPause, started)) };
			} finally {
				await stack.start(worker);
			}
		},
		TEST_MS,
	);

	test(
		'pause: the webhook process restarted while deliveries arrive; the missed ones come again; nothing lost',
		async () => {
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
			figures.pauseWebhookRestarted = {
				refusedWhileDown: refused(),
				...(await finish(IDS.dyingPause, started)),
			};
		},
		TEST_MS,
	);

	test(
		'pause: main restarted while deliveries arrive; nothing lost',
		async () => {
			const sb = stack.sandbox;
			const started = await startPaused(3);
			const delivered = deliveredFor(sb, started.id);
			await stack.stop('main');
			await untilN8n(() => deliveredFor(sb, started.id) > delivered, 'a delivery while main is down', 60_000);
			await stack.start('main', 'main');
			figures.pauseMainRestarted = {
				deliveredWhileDown: deliveredFor(sb, started.id) - delivered,
				...(await finish(IDS.dyingPause, started)),
			};
		},
		TEST_MS,
	);

	test.each([
		['the webhook process', 'webhook', 'pollWebhookRestarted'],
		['main', 'main', 'pollMainRestarted'],
	] as const)(
		'Poll: %s restarted while a worker runs the batch; nothing lost',
		async (_, name, fig) => {
			const started = await startPoll(3);
			await stack.stop(name);
			await stack.start(name, name);
			figures[fig] = await finish(IDS.dyingPoll, started);
		},
		TEST_MS,
	);

	test(
		'Poll: the worker running the batch killed (SIGKILL); n8n fails it, and the same call again is charged once',
		async () => {
			const sb = stack.sandbox;
			const started = await startPoll(3);
			const worker = workerOf(stack, started.id)!;
			expect(worker).toMatch(/^worker\d$/);
			await stack.stop(worker, 'SIGKILL');
			const killedAt = Date.now();
			try {
				// n8n's own recovery: the other worker fails the job once its lock expires, and nothing runs it again.
				const cookie = await ownerSession(stack.main);
				const all = started.before.size + 1;
				const settled = await settledExecutions(stack.main, cookie, IDS.dyingPoll, all, BATCH_MS);
				expect(settled.find((e) => e.id === started.id)?.status).toBe('error');
				const failedAfterSeconds = Math.round((Date.now() - killedAt) / 1000);
				const chargedBeforeRerun = chargesOfRuns(sb, started.runs()).length;
				// What the user does: the same call again (the same batch id, so the same Request Keys).
				const body = started.body;
				const again = await startUntil(IDS.dyingPoll, HOOK_PATHS.dyingPoll, body, () => true, 'the re-run');
				const rerun = await finish(IDS.dyingPoll, { ...again, runs: started.runs });
				// Nothing else ran the batch: the killed execution and the re-run are its only executions.
				const after = await executionsOf(stack.main, cookie, IDS.dyingPoll);
				const ids = after.filter((e) => !started.before.has(e.id)).map((e) => e.id);
				expect(ids.sort()).toEqual([started.id, again.id].sort());
				figures.pollWorkerKilled = {
					worker,
					killedExecution: started.id,
					failedAfterSeconds,
					chargedBeforeRerun,
					rerun,
					seconds: Math.round((Date.now() - started.startedAt) / 1000),
				};
			} finally {
				await stack.start(worker);
			}
		},
		TEST_MS,
	);
});
