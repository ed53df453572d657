/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// n8n's main 2.x in queue mode (main + 2 workers + 1 webhook process, Redis, Postgres) with the package
// installed from its tarball: batches and app looks run on workers with single-process outputs, two
// executions on two workers share the account's concurrency, a worker killed mid-batch (what n8n does,
// what is charged), and trigger deliveries to the webhook process, replays to main and after a restart
// of the webhook process (processes dying under bigger batches: dying.e2e.ts).
// Figures are printed at the end (ARCHITECTURE.md, Queue mode measured, quotes them).
import { executeWorkflow, type RunData } from '../../scripts/realN8n';
import type { QueueStack } from '../../scripts/queueStack';
import {
	bootWithOwner,
	chargesOfRuns,
	comparable,
	execution,
	HOOK_PATHS,
	IDS,
	NINE_PROMPTS,
	outputOf,
	queueWorkflows,
	runOnWorkers,
	runsOfExecution,
	workerOf,
	workersOf,
	type Item,
} from './helpers';
import { sigkillFigures, sigkillTests } from './sigkill';
import { triggerFigures, triggerTests } from './trigger';

let stack: QueueStack;
let cookie = '';
const figures: Record<string, unknown> = {};

beforeAll(async () => {
	({ stack, cookie } = await bootWithOwner(
		{
			workflows: (root) => queueWorkflows(root),
			activate: [IDS.batchHook, IDS.batchKeyed, IDS.lookHook, IDS.trigger, IDS.pauseHook],
		},
		figures,
	));
});

afterAll(async () => {
	Object.assign(figures, { sigkill: sigkillFigures, trigger: triggerFigures });
	console.log(`queue-mode figures:\n${JSON.stringify(figures, null, 2)}`);
	if (stack) await stack.shutdown();
});

function baselineItems(run: RunData, node: string): Item[] {
	const task = run.resultData.runData[node]?.[0];
	if (!task?.data) {
		throw new Error(`No single-process output from "${node}": ${JSON.stringify(task?.error ?? run.resultData.error)}`);
	}
	return task.data.main[0] as Item[];
}

describe('workers run our node with the outputs of single-process mode', () => {
	test('a 9-item Generate batch runs on a worker', async () => {
		const [done] = await runOnWorkers(stack, cookie, IDS.batchHook, HOOK_PATHS.batch, 1);
		expect(done.status).toBe('success');
		const worker = workerOf(stack, done.id);
		expect(worker).toMatch(/^worker\d$/);
		const items = outputOf(await execution(stack.main, cookie, done.id), 'Generate Images');
		expect(items.map((i) => i.json.prompt)).toEqual(NINE_PROMPTS);
		for (const i of items) expect(i.binary?.data.mimeType).toBe('image/png');
		// `n8n execute` falls back to regular mode: the same workflow in one process, same database
		const single = baselineItems(await executeWorkflow(stack.main, IDS.batchBase), 'Generate Images');
		expect(comparable(items)).toEqual(comparable(single));
		expect(chargesOfRuns(stack.sandbox, runsOfExecution(stack.sandbox, done.id))).toHaveLength(9);
		const runs = runsOfExecution(stack.sandbox, done.id);
		figures.batch = {
			execution: done.id,
			worker,
			runs: runs.length,
			charges: chargesOfRuns(stack.sandbox, runs).length,
		};
	});

	test('an app look runs on a worker', async () => {
		const [done] = await runOnWorkers(stack, cookie, IDS.lookHook, HOOK_PATHS.look, 1);
		expect(done.status).toBe('success');
		const worker = workerOf(stack, done.id);
		expect(worker).toMatch(/^worker\d$/);
		const [look] = outputOf(await execution(stack.main, cookie, done.id), 'Royal Pet Portrait');
		const expected = { status: 'SUCCEEDED', app: 'pet-portrait', look: 'royal', model: 'studio-image-v1' };
		expect(look.json).toMatchObject(expected);
		const single = baselineItems(await executeWorkflow(stack.main, IDS.lookBase), 'Royal Pet Portrait');
		expect(comparable([look])).toEqual(comparable(single));
		figures.look = { execution: done.id, worker };
	});

	test('two batches on two workers share the account concurrency: no 409 surfaces, no double charge', async () => {
		const mark = stack.sandbox.engine.log.length;
		const done = await runOnWorkers(stack, cookie, IDS.batchHook, HOOK_PATHS.batch, 2);
		expect(done.map((e) => e.status)).toEqual(['success', 'success']);
		const workers = done.map((e) => workerOf(stack, e.id));
		const log = stack.sandbox.engine.log.slice(mark);
		const submissions = log.filter((e) => e.method === 'POST' && e.path === '/v1/generations');
		const busy = submissions.filter((e) => e.status === 409).length;
		const limited = submissions.filter((e) => e.status === 429).length;
		for (const e of done) {
			const items = outputOf(await execution(stack.main, cookie, e.id), 'Generate Images');
			expect(items.map((i) => i.json.status)).toEqual(Array(9).fill('SUCCEEDED'));
			const runs = runsOfExecution(stack.sandbox, e.id);
			expect(new Set(runs.map((r) => r.requestKey)).size).toBe(9);
			expect(runs).toHaveLength(9);
			expect(chargesOfRuns(stack.sandbox, runs)).toHaveLength(9);
		}
		const keys = done.flatMap((e) => runsOfExecution(stack.sandbox, e.id)).map((r) => r.requestKey!);
		const instanceParts = new Set(keys.map((k) => k.split('-')[1]));
		expect(instanceParts.size).toBe(1); // every process derives the same instance id from the encryption key
		const counts = { submissions: submissions.length, busy409: busy, rateLimited429: limited, charges: 18 };
		figures.twoTogether = { workers, ...counts };
		expect(new Set(workers).size).toBe(2);
	});
});

describe('pause mode in queue mode', () => {
	test('a paused batch is resumed by a worker after the deliveries reach the webhook process', async () => {
		const mark = stack.sandbox.engine.webhooks.deliveries.length;
		const [done] = await runOnWorkers(stack, cookie, IDS.pauseHook, HOOK_PATHS.pause, 1);
		expect(done.status).toBe('success');
		const items = outputOf(await execution(stack.main, cookie, done.id), 'Generate Images');
		expect(items.map((i) => i.json.prompt)).toEqual(NINE_PROMPTS);
		for (const i of items) expect(i.binary?.data.mimeType).toBe('image/png');
		const runs = runsOfExecution(stack.sandbox, done.id);
		expect(runs).toHaveLength(9);
		expect(chargesOfRuns(stack.sandbox, runs)).toHaveLength(9);
		// Every delivery went to the webhook process; a worker ran the execution before and after the pause.
		const deliveries = stack.sandbox.engine.webhooks.deliveries
			.slice(mark)
			.filter((d) => runs.some((r) => r.id === d.runId));
		expect(deliveries.length).toBe(9);
		expect(deliveries.every((d) => d.url.startsWith(`${stack.webhookBase}/webhook-waiting/`))).toBe(true);
		const workers = workersOf(stack, done.id);
		expect(workers.length).toBeGreaterThanOrEqual(2);
		expect(workers.every((w) => /^worker\d$/.test(w))).toBe(true);
		figures.pause = { execution: done.id, workers, deliveries: deliveries.length, runs: runs.length };
	});
});

describe('a worker killed (SIGKILL) in the middle of a batch', () => {
	sigkillTests(() => ({ stack, cookie }));
});

describe('trigger deliveries in queue mode', () => {
	triggerTests(() => ({ stack, cookie }));
});
