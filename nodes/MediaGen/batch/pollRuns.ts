// Waiting → Poll for Generate and Run Look: each ready item submitted under the spending cap and waited for, as many
// at once as the account allows (without Continue On Fail no new item starts after a failure), then the step's output.
import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { concurrencyOf } from '../run/concurrency';
import { askedFor, withFileAddresses } from '../run/runRequest';
import { runToItem, stepOutput, type ItemResult } from '../run/runOutput';
import { submitUnderCap, type SpendingCap } from '../run/spendingCap';
import { submitKeyed } from '../run/submission';
import { itemDeadline } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';
import { runPool } from './pool';
import { failedItem, typedRequest, type CheckedItems } from './prepareItems';

/**
 * Uploads each item's files, submits it under the cap, waits for its run and makes its output item; then the step's
 * output. Under a cap, items whose key may give back a run paid for earlier go first: new runs must not use it up.
 */
export async function pollRuns(
	ctx: IExecuteFunctions,
	items: CheckedItems,
	cap: SpendingCap | undefined,
): Promise<INodeExecutionData[]> {
	const ready = cap ? cap.sendingOrder(items.ready) : items.ready;
	const runs = new Map<number, RunRecord>();
	const job = async (n: number): Promise<INodeExecutionData> => {
		const p = ready[n];
		// The time limit covers the whole item: waiting for a slot or a rate window counts too.
		const deadline = itemDeadline(String(p.body.kind), p.settings.timeoutMs);
		const s = { ctx, settings: p.settings, itemIndex: p.itemIndex, deadline, batch: p.batchKeys };
		p.body = await withFileAddresses(ctx, p);
		let run = await submitUnderCap(cap, ctx.getNode(), p, async () => await submitKeyed(s, p.body, true));
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
	const settled = await runPool(ready.length, width, job, !ctx.continueOnFail());
	const results = ready.map((p, n): ItemResult => {
		const r = settled[n];
		const { itemIndex } = p;
		const charge = { itemIndex, requestKey: String(p.body.requestKey), run: runs.get(itemIndex) };
		if (!r || r.ok) return { ...charge, item: r?.value };
		return { ...charge, error: r.error, item: failedItem(r.error, itemIndex, askedFor(p)) };
	});
	for (const { itemIndex, error } of items.refused)
		results.push({ itemIndex, item: failedItem(error, itemIndex, typedRequest(ctx, itemIndex)) });
	const addHints = (hints: NodeExecutionHint[]) => ctx.addExecutionHints(...hints);
	return stepOutput(ctx, results, { continueOnFail: ctx.continueOnFail(), batch: items.keys, addHints });
}
