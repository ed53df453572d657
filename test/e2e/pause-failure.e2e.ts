// Real n8n (2.41.1 and 1.123.81), pause mode when a run fails on the service (issue 42, point 1): whatever On Error
// says, the failure is where n8n shows failures. "Continue (using error output)": the failed item leaves by the error
// output, naming its run and refund, the others by the regular output. "Continue (regular output)": an error item in
// the regular output. "Stop Workflow": the execution fails with the message, naming the run and its refund (and n8n
// gives the step an empty item, which the next step receives: a resumed step can fail only that way).
import type { Account } from '../../sandbox/types';
import {
	charged as chargedTo,
	endOf,
	execution,
	executions,
	GENERATE,
	knownIds,
	runsWithPrompts,
	startBatch,
	startPauseStack,
	stopPauseStack,
	type PauseStack,
} from './pauseStack';
import { untilN8n } from './shared';

const STOP = 'mgPauseFailStop1';
const REGULAR = 'mgPauseFailReg01';
const ERROR_OUTPUT = 'mgPauseFailErr01';
let stack: PauseStack;
let account: Account;

beforeAll(async () => {
	stack = await startPauseStack(
		(sb) => [(account = sb.engine.createAccount({ credits: 5000, concurrency: 3 }))],
		([own]) => [
			{ id: STOP, account: own, kind: 'image', next: true },
			{ id: REGULAR, account: own, kind: 'image', next: true, onError: 'continueRegularOutput' },
			{ id: ERROR_OUTPUT, account: own, kind: 'image', next: true, onError: 'continueErrorOutput' },
		],
	);
});

afterAll(() => stopPauseStack(stack));

/** Runs the batch `workflowId` on two prompts, one of which fails; returns the ended execution and the failed run. */
async function failingBatch(workflowId: string) {
	const prompts = [`fine ${workflowId}`, `broken ${workflowId} [fail]`];
	const known = await knownIds(stack, workflowId);
	const before = chargedTo(stack.sb, account);
	await startBatch(stack, workflowId, prompts);
	const started = await untilN8n(
		async () => (await executions(stack, workflowId)).find((e) => !known.has(e.id)),
		'the batch to pause',
	);
	const done = await endOf(stack, workflowId, started.id);
	const failed = runsWithPrompts(stack.sb, [prompts[1]])[0];
	expect(failed.status).toBe('FAILED');
	// The failed run is refunded: only the fine one stays charged.
	expect(chargedTo(stack.sb, account) - before).toBe(runsWithPrompts(stack.sb, [prompts[0]])[0].cost);
	const stored = await execution(stack, done.id);
	const output = (name: string, index = 0) =>
		(stored.runData?.[name]?.at(-1)?.data?.main[index] ?? []).map((i) => i.json);
	return { done, failed, stored, output, prompts };
}

test('Continue (using error output): the failed item leaves by the error output with its run and refund', async () => {
	const { done, failed, output, prompts } = await failingBatch(ERROR_OUTPUT);
	expect(done.status).toBe('success');
	expect(output(GENERATE, 0).map((j) => j.prompt)).toEqual([prompts[0]]);
	expect(output('Next').map((j) => j.status)).toEqual(['SUCCEEDED']);
	const [errorItem] = output('On Error');
	expect(errorItem.error).toBe(`Run ${failed.id} failed: ${failed.error}`);
	expect(errorItem.message).toMatch(new RegExp(`^${failed.cost} credits? (was|were) refunded automatically`));
	expect(output(GENERATE, 1)).toEqual([errorItem]);
});

test('Continue (regular output): an error item beside the good one, with its run ID and refund', async () => {
	const { done, failed, output, prompts } = await failingBatch(REGULAR);
	expect(done.status).toBe('success');
	const items = output('Next');
	expect(items.map((j) => j.prompt)).toEqual(prompts);
	expect(items[1]).toMatchObject({
		error: `Run ${failed.id} failed: ${failed.error}`,
		runId: failed.id,
		refunded: failed.cost,
		status: 'FAILED',
	});
});

test('Stop Workflow: the execution fails with the message naming the run and its refund', async () => {
	const { done, failed, stored, output } = await failingBatch(STOP);
	expect(done.status).toBe('error');
	expect(stored.raw).toContain(`Run ${failed.id} failed`);
	expect(stored.raw).toContain(`(${failed.cost} credits refunded automatically)`);
	// What n8n itself does with a resume call's error (webhook-helpers.js, 1.123.81 and 2.41.1): it drops the run
	// data saved before the pause and resumes the step with one empty item, which the next step receives.
	expect(Object.keys(stored.runData ?? {}).sort()).toEqual(['Generate', 'Next']);
	expect(output(GENERATE)).toEqual([{}]);
	expect(output('Next')).toEqual([{}]);
});
