/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Max Credits per Execution across a pause in queue mode (issue 28, point 5), the main 2.x and 1.123.81: a
// worker runs the nine-image batch in pause mode under a cap of 50 (9 × 5 = 45 credits) and lets go of the
// execution; the deliveries reach the webhook process and a worker resumes it; an IF node then loops the
// items back into the same step. That second pass counts the 45 credits the paused batch spent (they are
// saved with the execution, not in a worker's memory), so its 9 more runs are refused up front: 9 runs,
// 9 charges in all. Figures are printed at the end.
import { localiseWorkflow, N8N_VERSIONS, ownerSession } from '../../scripts/realN8n';
import { bootQueueStack, type QueueStack } from '../../scripts/queueStack';
import {
	chargesOfRuns,
	execution,
	pausedBatch,
	postHook,
	runsOfExecution,
	settledExecutions,
	workersOf,
} from './helpers';

const VERSIONS = N8N_VERSIONS;
const WORKFLOW_ID = 'mgQueueCapPause1';
const HOOK_PATH = 'mediagen-queue-cap-pause';
const CAP = 50;

type Node = Record<string, unknown> & { name: string; parameters: Record<string, unknown> };
type Workflow = Record<string, unknown> & { nodes: Node[]; connections: Record<string, unknown> };

/** The paused nine-image batch with a cap, and an IF that sends its output back into it once. */
function cappedLoop(sandboxRoot: string): Record<string, unknown> {
	const wf = pausedBatch() as Workflow;
	const hook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
	hook.parameters.path = HOOK_PATH;
	const generate = wf.nodes.find((n) => n.name === 'Generate Images')!;
	// The looped items carry the prompt as `prompt` (the step's output), the first ones as `prompts`.
	generate.parameters.prompt = '={{ $json.prompts ?? $json.prompt }}';
	generate.parameters.additionalFields = { maxCredits: CAP };
	wf.nodes.push({
		id: 'c0ffee00-0000-4000-8000-00000000ca90',
		name: 'Once More',
		type: 'n8n-nodes-base.if',
		typeVersion: 1,
		position: [1100, 0],
		parameters: { conditions: { boolean: [{ value1: '={{ $runIndex === 0 }}', value2: true }] } },
	});
	wf.connections['Generate Images'] = { main: [[{ node: 'Once More', type: 'main', index: 0 }]] };
	wf.connections['Once More'] = { main: [[{ node: 'Generate Images', type: 'main', index: 0 }], []] };
	return localiseWorkflow({ ...wf, name: 'Paused batch under a cap, looped once' }, sandboxRoot, '/tmp', WORKFLOW_ID);
}

describe.each(VERSIONS)('n8n %s', (version) => {
	let stack: QueueStack;
	let cookie = '';
	const figures: Record<string, unknown> = {};

	beforeAll(async () => {
		stack = await bootQueueStack({ version, workflows: (root) => [cappedLoop(root)], activate: [WORKFLOW_ID] });
		cookie = await ownerSession(stack.main);
	});

	afterAll(async () => {
		console.log(`spending cap across a pause, n8n ${version}:\n${JSON.stringify(figures, null, 2)}`);
		if (stack) await stack.shutdown();
	});

	test('the pass after the pause counts what the paused batch spent: refused up front, 9 charges in all', async () => {
		expect(await postHook(stack, HOOK_PATH)).toBe(200);
		const [done] = await settledExecutions(stack.main, cookie, WORKFLOW_ID, 1, 300_000);
		const detail = await execution(stack.main, cookie, done.id);
		const passes = detail.runData['Generate Images'] ?? [];
		const runs = runsOfExecution(stack.sandbox, done.id);
		const workers = workersOf(stack, done.id);
		const message = passes[1]?.error?.message ?? detail.error?.message;
		Object.assign(figures, { execution: done.id, status: done.status, workers, runs: runs.length, message });
		// Pass 1 paused on a worker and was resumed by a worker (a new job): 9 images.
		expect(passes[0]?.data?.main[0]).toHaveLength(9);
		expect(workers.length).toBeGreaterThanOrEqual(2);
		expect(workers.every((w) => /^worker\d$/.test(w))).toBe(true);
		// Pass 2, on the worker that resumed it: refused before submitting, naming what was spent.
		expect(done.status).toBe('error');
		expect(message).toBe(
			`Max Credits per Execution is ${CAP}: these 9 runs would cost 45 credits at the prices known in advance ` +
				'(45 already spent by this step in this execution)',
		);
		expect(runs).toHaveLength(9);
		expect(chargesOfRuns(stack.sandbox, runs)).toHaveLength(9);
	});
});
