/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// n8n 1.123.81 in queue mode with Bull's stalled-job re-run on (QUEUE_WORKER_MAX_STALLED_COUNT=1, the 1.x
// default, set here explicitly; n8n 2.x removed the variable and runs Bull with maxStalledCount 0, see
// sigkill.ts): a worker SIGKILLed after 3 of 9 items were submitted. Once its lock expires another worker
// takes the same job, so the same execution id, and runs the workflow again from its start; the node's
// default request keys (n8n-<instance>-<execution>-<node>-<run>-<item>) then give back the runs in flight.
// Measured: runs charged, items delivered, items charged twice. Figures are printed at the end.
import { N8N_V1_VERSION } from '../../scripts/realN8n';
import type { QueueStack } from '../../scripts/queueStack';
import {
	bootWithOwner,
	chargedItems,
	chargesOfRuns,
	execution,
	IDS,
	outputOf,
	queueWorkflows,
	runsOfExecution,
	settledExecutions,
	workersOf,
} from './helpers';
import { killBatchWithDefaultKeys, withSlowImages } from './sigkill';

const VERSION = N8N_V1_VERSION;
let stack: QueueStack;
let cookie = '';
const figures: Record<string, unknown> = {};

beforeAll(async () => {
	({ stack, cookie } = await bootWithOwner(
		{
			version: VERSION,
			// n8n's defaults for the lock (60 s, renewed every 10 s) and the stalled check (every 30 s)
			env: { QUEUE_WORKER_MAX_STALLED_COUNT: '1' },
			workflows: (root) => queueWorkflows(root).filter((wf) => wf.id === IDS.batchHook),
			activate: [IDS.batchHook],
		},
		figures,
	));
});

afterAll(async () => {
	console.log(`stalled-job re-run, n8n ${VERSION}:\n${JSON.stringify(figures, null, 2)}`);
	if (stack) await stack.shutdown();
});

test('a worker killed mid-batch: another worker re-runs the same execution; 9 items, 9 charges', async () => {
	const sb = stack.sandbox;
	await withSlowImages(stack, async () => {
		const { id, worker, killedAt, before, chargedBeforeKill } = await killBatchWithDefaultKeys(() => ({
			stack,
			cookie,
		}));
		const settled = await settledExecutions(stack.main, cookie, IDS.batchHook, before.size + 1, 300_000);
		const finishedAfterSeconds = Math.round((Date.now() - killedAt) / 1000);
		const mine = settled.filter((e) => !before.has(e.id));
		const detail = await execution(stack.main, cookie, id);
		const items = detail.status === 'success' ? outputOf(detail, 'Generate Images') : [];
		const runs = runsOfExecution(sb, id);
		const charges = chargesOfRuns(sb, runs).length;
		figures.killedWorker = {
			execution: id,
			killed: worker,
			ranOn: workersOf(stack, id),
			status: detail.status,
			error: detail.error?.message,
			executions: mine.length,
			finishedAfterSeconds,
			chargedBeforeKill,
			runs: runs.length,
			charges,
			itemsDelivered: items.filter((i) => i.json.status === 'SUCCEEDED').length,
			itemsChargedTwice: charges - chargedItems(sb, runs).size,
		};
		expect(mine.map((e) => e.id)).toEqual([id]);
		expect(detail.status).toBe('success');
		// workersOf lists by process name, not by time: the killed worker started it once, another re-ran it once.
		const ranOn = workersOf(stack, id);
		expect(ranOn).toHaveLength(2);
		expect(ranOn.filter((w) => w === worker)).toHaveLength(1);
		expect(ranOn.filter((w) => w !== worker)).toHaveLength(1);
		expect(items.map((i) => i.json.status)).toEqual(Array(9).fill('SUCCEEDED'));
		expect(runs).toHaveLength(9);
		expect(charges).toBe(9);
	});
});
