// A worker killed (SIGKILL) in the middle of a 9-item batch (part of queue.e2e.ts). Measured: what n8n
// does with the execution (2.40.7 runs Bull with maxStalledCount 0: the job is failed once another
// worker sees its lock expire, never re-run), what was charged and delivered, and what a retry from the
// executions list and a re-run (the same webhook call again) charge. Then the same crash with the batch
// keyed by the caller's batch id (Request Key from the data), re-run at once on the other worker.
import type { QueueStack } from '../../scripts/queueStack';
import {
	chargedItems,
	chargesOfRuns,
	execution,
	executionsOf,
	HOOK_PATHS,
	IDS,
	overlap,
	postHook,
	runOnWorkers,
	runsKeyed,
	runsOfExecution,
	settledExecutions,
	workerOf,
	workersOf,
} from './helpers';
import { untilN8n } from '../e2e/shared';

export const sigkillFigures: Record<string, unknown> = {};

export type Ctx = () => { stack: QueueStack; cookie: string };

/** Starts a batch on a worker, waits until its first wave (3 runs) is submitted, then SIGKILLs that worker. */
export async function killMidBatch(
	ctx: Ctx,
	workflowId: string,
	hookPath: string,
	body: Record<string, unknown>,
	submitted: (executionId: string) => number,
) {
	const { stack, cookie } = ctx();
	const before = new Set((await executionsOf(stack.main, cookie, workflowId)).map((e) => e.id));
	expect(await postHook(stack, hookPath, body)).toBe(200);
	const victim = await untilN8n(
		async () => {
			const e = (await executionsOf(stack.main, cookie, workflowId)).find((x) => !before.has(x.id));
			const worker = e && workerOf(stack, e.id);
			return worker && submitted(e.id) >= 3 ? { id: e.id, worker } : undefined;
		},
		`a worker to take ${workflowId} and submit its first 3 runs`,
		60_000,
	);
	const killedAt = Date.now();
	await stack.stop(victim.worker, 'SIGKILL');
	return { id: victim.id, worker: victim.worker, killedAt, before };
}

/** killMidBatch on the nine-image batch with default request keys; also counts what was charged by then. */
export async function killBatchWithDefaultKeys(ctx: Ctx) {
	const sb = ctx().stack.sandbox;
	const killed = await killMidBatch(ctx, IDS.batchHook, HOOK_PATHS.batch, {}, (e) => runsOfExecution(sb, e).length);
	return { ...killed, chargedBeforeKill: chargesOfRuns(sb, runsOfExecution(sb, killed.id)).length };
}

export async function withSlowImages(stack: QueueStack, fn: () => Promise<void>): Promise<void> {
	const image = stack.sandbox.config.durations.image;
	stack.sandbox.config.durations.image = 6000; // three waves of 6 s: time to kill in the middle
	try {
		await fn();
	} finally {
		stack.sandbox.config.durations.image = image;
	}
}

export function sigkillTests(ctx: Ctx): void {
	test('default request keys: the execution fails, nothing re-runs it; a retry and a re-run charge again', async () => {
		const { stack, cookie } = ctx();
		const sb = stack.sandbox;
		await withSlowImages(stack, async () => {
			const { id, worker, killedAt, before, chargedBeforeKill } = await killBatchWithDefaultKeys(ctx);
			const settled = await settledExecutions(stack.main, cookie, IDS.batchHook, before.size + 1, 240_000);
			const final = settled.find((e) => e.id === id);
			const detectedAfterSeconds = Math.round((Date.now() - killedAt) / 1000);
			const detail = await execution(stack.main, cookie, id);
			await stack.start(worker); // back to two workers

			// "Retry" in the executions list (POST /rest/executions/:id/retry answers when the retry has finished)
			const retry = await fetch(`${stack.mainBase}/rest/executions/${id}/retry`, {
				method: 'POST',
				headers: { cookie, 'content-type': 'application/json' },
				body: JSON.stringify({ loadWorkflow: false }),
			});
			const retryText = await retry.text();
			const retryFigures: Record<string, unknown> = { httpStatus: retry.status };
			let retried: { id: string; status: string } | undefined;
			if (retry.ok) {
				retried = (JSON.parse(retryText) as { data: { id: string; status: string } }).data;
				const runs = runsOfExecution(sb, retried.id);
				Object.assign(retryFigures, {
					execution: retried.id,
					status: retried.status,
					error: (await execution(stack.main, cookie, retried.id)).error?.message,
					worker: workerOf(stack, retried.id) ?? 'main',
					charges: chargesOfRuns(sb, runs).length,
					itemsChargedTwice: overlap(chargedItems(sb, runsOfExecution(sb, id)), chargedItems(sb, runs)),
				});
			} else retryFigures.answer = retryText.slice(0, 300);
			// a re-run: the same webhook call again, a new execution
			const [rerun] = await runOnWorkers(stack, cookie, IDS.batchHook, HOOK_PATHS.batch, 1);
			// Would anything pick the killed job up again? The re-run was queued after n8n had failed that job, and
			// has run: a worker took whatever was queued before it, so a new execution, or the killed one started
			// again, would be in the list and the logs by now.
			const after = await executionsOf(stack.main, cookie, IDS.batchHook);
			const ours = [id, rerun.id, retried?.id];
			const automaticReruns =
				after.filter((e) => !before.has(e.id) && !ours.includes(e.id)).length + workersOf(stack, id).length - 1;
			const submittedAfterKill = runsOfExecution(sb, id).filter((r) => r.createdAt > killedAt).length;
			sigkillFigures.defaultKeys = {
				execution: id,
				worker,
				finalStatus: final?.status,
				error: detail.error?.message,
				detectedAfterSeconds,
				automaticReruns,
				submittedAfterKill,
				chargedBeforeKill,
				itemsDelivered: detail.runData['Generate Images']?.[0]?.data?.main[0]?.length ?? 0,
				retry: retryFigures,
				rerun: {
					execution: rerun.id,
					status: rerun.status,
					charges: chargesOfRuns(sb, runsOfExecution(sb, rerun.id)).length,
					itemsChargedTwice: overlap(
						chargedItems(sb, runsOfExecution(sb, id)),
						chargedItems(sb, runsOfExecution(sb, rerun.id)),
					),
				},
			};
			expect(final?.status).toBe('error');
			expect(automaticReruns).toBe(0);
			expect(submittedAfterKill).toBe(0);
			expect(rerun.status).toBe('success');
		});
	});

	test('request key from the data: the same batch re-run at once on the other worker is charged once', async () => {
		const { stack, cookie } = ctx();
		const sb = stack.sandbox;
		const batchId = `crash-${Date.now().toString(36)}`;
		await withSlowImages(stack, async () => {
			const { id, worker } = await killMidBatch(
				ctx,
				IDS.batchKeyed,
				HOOK_PATHS.keyed,
				{ batchId },
				() => runsKeyed(sb, `${batchId}-`).length,
			);
			const chargedBeforeKill = chargesOfRuns(sb, runsKeyed(sb, `${batchId}-`)).length;
			// re-run straight away, while n8n still counts the killed execution as running
			expect(await postHook(stack, HOOK_PATHS.keyed, { batchId })).toBe(200);
			const settled = await settledExecutions(stack.main, cookie, IDS.batchKeyed, 2, 240_000);
			const rerun = settled.find((e) => e.id !== id)!;
			await stack.start(worker);
			const runs = runsKeyed(sb, `${batchId}-`);
			sigkillFigures.keyedByBatchId = {
				killed: { execution: id, worker, status: settled.find((e) => e.id === id)?.status, chargedBeforeKill },
				rerun: { execution: rerun.id, worker: workerOf(stack, rerun.id), status: rerun.status },
				runs: runs.length,
				charges: chargesOfRuns(sb, runs).length,
			};
			expect(rerun.status).toBe('success');
			const items = (await execution(stack.main, cookie, rerun.id)).runData['Generate Images'][0].data!.main[0];
			expect(items.map((i) => i.json.status)).toEqual(Array(9).fill('SUCCEEDED'));
			expect(runs).toHaveLength(9);
			expect(chargesOfRuns(sb, runs)).toHaveLength(9);
		});
	});
}
