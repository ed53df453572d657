// Waiting → Poll for Generate and Run Look: each ready item submitted inside the spending cap and waited for, as many
// at once as the account allows (without Continue On Fail no new item starts after a failure); then the step's output
// in input order, or its first failure naming every run already paid for, so none is lost.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { concurrencyOf } from '../run/concurrency';
import { chargedRunOf, withPaidRuns } from '../run/runErrors';
import { askedFor, withFileAddresses, type RunRequest } from '../run/runRequest';
import { itemsInInputOrder, outcomeHints, runToItem, withErrorOutput } from '../run/runOutput';
import { submitUnderCap, type SpendingCap } from '../run/spendingCap';
import { submitKeyed } from '../run/submission';
import { itemDeadline } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';
import { runPool, type Settled } from './pool';
import { failedItem, typedRequest, type CheckedItems } from './prepareItems';

/** Each ready item's outcome (undefined: never started), and the runs the items got. */
export interface Outcomes {
	settled: Array<Settled<INodeExecutionData> | undefined>;
	runs: Map<number, RunRecord>;
}

/** Submits each item (its files uploaded first) under the cap, waits for its run, and makes its output item. */
export async function submitAndWait(
	ctx: IExecuteFunctions,
	ready: RunRequest[],
	cap: SpendingCap | undefined,
): Promise<Outcomes> {
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
	return { settled: await runPool(ready.length, width, job, !ctx.continueOnFail()), runs };
}

/**
 * The step's items in input order, refused and failed ones as error items (Continue On Fail); without it, the first
 * failure, naming every other run that was or may have been charged so it can be fetched without paying again.
 */
export function outputOf(ctx: IExecuteFunctions, items: CheckedItems, outcomes: Outcomes): INodeExecutionData[] {
	const { ready, refused, keys } = items;
	const out = new Map<number, INodeExecutionData>();
	for (const { itemIndex, error } of refused)
		out.set(itemIndex, failedItem(error, itemIndex, typedRequest(ctx, itemIndex)));
	const failures = new Map<number, unknown>();
	const notStarted: number[] = [];
	for (const [n, r] of outcomes.settled.entries()) {
		const itemIndex = ready[n].itemIndex;
		if (!r) notStarted.push(itemIndex);
		else if (r.ok) out.set(itemIndex, r.value);
		else if (ctx.continueOnFail()) out.set(itemIndex, failedItem(r.error, itemIndex, askedFor(ready[n])));
		else failures.set(itemIndex, r.error);
	}
	if (failures.size) {
		const [[failed, error]] = failures;
		const charged = ready.flatMap((p) => {
			if (p.itemIndex === failed) return [];
			const run = chargedRunOf(p.itemIndex, outcomes.runs.get(p.itemIndex), failures.get(p.itemIndex));
			// The key the item was last sent with (-r2 … after a refund), so the run can be asked for again.
			return run ? [{ ...run, requestKey: run.requestKey ?? String(p.body.requestKey) }] : [];
		});
		throw withPaidRuns(error, charged, notStarted, keys);
	}
	const output = itemsInInputOrder(out);
	const hints = outcomeHints(output);
	if (hints.length) ctx.addExecutionHints(...hints);
	return withErrorOutput(ctx, output);
}
