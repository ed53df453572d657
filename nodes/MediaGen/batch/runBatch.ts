// The batch path of Generate and Run Look. First every item is read and checked (nothing is spent);
// with Continue On Fail off, one bad item stops the whole batch before the first submission. Then the
// items run as many at once as the account allows, inside the spending cap; without Continue On Fail no
// new item starts after a failure, and the error lists the runs already paid for so none is lost.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { pauseRuns } from '../pause/pauseRuns';
import { concurrencyOf } from '../run/concurrency';
import { chargedRunOf, withPaidRuns } from '../run/paidRuns';
import { askedFor, withFileAddresses, type RunRequest } from '../run/runRequest';
import { assignRequestKeys } from '../run/requestKey';
import { itemsInInputOrder, outcomeHints, runToItem, withErrorOutput } from '../run/runOutput';
import { spendingCapFor, submitUnderCap } from '../run/spendingCap';
import { submitRun, type SubmitContext } from '../run/submission';
import { itemDeadline } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';
import { runPool } from './pool';
import { failedItem, prepareAll, typedRequest } from './prepareItems';

/**
 * Generate's and Run Look's executeAll: checks every item, applies the spending cap, then runs the items (Poll
 * mode) or hands them to pause mode. Continue On Fail is caught here per item: a failed item becomes an error item
 * beside the others (the router only catches an error that stops the whole batch).
 */
export async function runBatch(
	ctx: IExecuteFunctions,
	prepare: (itemIndex: number) => Promise<RunRequest>,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	// 1. Read and check every item before anything can be charged.
	const { ready, bad } = await prepareAll(ctx, prepare);
	const batch = assignRequestKeys(ctx.getInputData().length, ready);
	for (const p of ready) p.batchKeys = batch;

	const cap = await spendingCapFor(ctx, ready);

	if (ready[0]?.settings.mode === 'pause') {
		return await pauseRuns(ctx, ready, continueOnFail ? bad : [], cap);
	}

	// 2. Run them, as many at once as the account allows.
	const claimed = new Set<string>();
	const runs = new Map<number, RunRecord>();
	const job = async (n: number): Promise<INodeExecutionData> => {
		const p = ready[n];
		// The time limit covers the whole item: waiting for a slot or a rate window counts too.
		const deadline = itemDeadline(String(p.body.kind), p.settings.timeoutMs);
		const s: SubmitContext = { ctx, settings: p.settings, itemIndex: p.itemIndex, claimed, deadline, batch };
		p.body = await withFileAddresses(ctx, p);
		let run = await submitUnderCap(cap, ctx.getNode(), p, async () => await submitRun(s, p.body));
		runs.set(p.itemIndex, run);
		const requestKey = String(p.body.requestKey);
		if (p.settings.wait) {
			run = await waitForRun(ctx, run, { ...p.settings, deadline }, p.itemIndex, requestKey);
			runs.set(p.itemIndex, run);
		}
		if (run.status === 'FAILED') cap?.refund(run);
		return await runToItem(ctx, run, p.settings, p.itemIndex, { requestKey, ...p.extraJson });
	};
	const width = await concurrencyOf(ctx, ready.length);
	const results = await runPool(ready.length, width, job, !continueOnFail);

	// 3. Outputs in input order.
	const out = new Map<number, INodeExecutionData>();
	for (const { itemIndex, error } of bad)
		out.set(itemIndex, failedItem(error, itemIndex, typedRequest(ctx, itemIndex)));
	const failures: Array<{ itemIndex: number; error: unknown }> = [];
	const notStarted: number[] = [];
	for (const [n, r] of results.entries()) {
		const itemIndex = ready[n].itemIndex;
		if (!r) notStarted.push(itemIndex);
		else if (r.ok) out.set(itemIndex, r.value);
		else if (continueOnFail) out.set(itemIndex, failedItem(r.error, itemIndex, askedFor(ready[n])));
		else failures.push({ itemIndex, error: r.error });
	}
	if (failures.length) {
		const [{ error, itemIndex }] = failures;
		// Every other item that was or may have been charged, so the user can fetch its run without paying again.
		const errorOf = new Map(failures.map((f) => [f.itemIndex, f.error]));
		const charged = ready
			.filter((p) => p.itemIndex !== itemIndex)
			.flatMap((p) => {
				const charged = chargedRunOf(p.itemIndex, runs.get(p.itemIndex), errorOf.get(p.itemIndex));
				// The key the item was last sent with (-r2 … after a refund), so the run can be asked for again.
				return charged ? [{ ...charged, requestKey: charged.requestKey ?? String(p.body.requestKey) }] : [];
			});
		throw withPaidRuns(error, charged, notStarted, batch);
	}
	const output = itemsInInputOrder(out);
	const hints = outcomeHints(output);
	if (hints.length) ctx.addExecutionHints(...hints);
	return withErrorOutput(ctx, output);
}
