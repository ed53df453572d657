// Waiting → Poll for Generate and Run Look: each ready item sent under the spending cap and waited for, as many at
// once as the account allows (without Continue On Fail no new item starts after a failure), then the step's output.
// Each item's ledger entry says where it stands; it is kept in memory for the step.
import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { concurrencyOf } from '../run/concurrency';
import { askedFor, withFileAddresses } from '../run/runRequest';
import { addRunDetails, sendFailure } from '../run/runErrors';
import { runToItem, stepOutput } from '../run/runOutput';
import { sendUnderCap, type SpendingCap } from '../run/spendingCap';
import { itemDeadline, timeLimitMs } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';
import { ledgerItem, learnRun } from '../run/ledger';
import { runPool } from './pool';
import { failedItem, typedRequest, type CheckedItems } from './prepareItems';
import { pollLimits, sendItem } from '../run/send';

/**
 * Uploads each item's files, sends it under the cap, waits for its run and makes its output item; then the step's
 * output. Under a cap, items whose key may give back a run paid for earlier go first: new runs must not use it up.
 */
export async function pollRuns(
	ctx: IExecuteFunctions,
	items: CheckedItems,
	cap: SpendingCap | undefined,
): Promise<INodeExecutionData[]> {
	const ready = cap ? cap.sendingOrder(items.ready) : items.ready;
	const ledger = ready.map((p) => ledgerItem(p.itemIndex, String(p.body.requestKey)));
	const job = async (n: number): Promise<INodeExecutionData> => {
		const [p, item] = [ready[n], ledger[n]];
		const kind = String(p.body.kind);
		// The time limit covers the whole item: waiting for a slot or a rate window counts too.
		const deadline = itemDeadline(kind, p.settings.timeoutMs);
		// A file that could not be uploaded stops the item before anything is sent for it.
		const body = await withFileAddresses(ctx, p).catch((error: Error) => {
			throw addRunDetails(error, { nothingCharged: true });
		});
		await sendUnderCap(cap, ctx.getNode(), p, item, () => sendItem(ctx, item, body, pollLimits(p.settings, deadline)));
		if (!item.run || item.state === 'refused') {
			throw sendFailure(ctx, item, items.keys, timeLimitMs(kind, p.settings.timeoutMs));
		}
		let run = item.run;
		if (p.settings.wait) {
			run = await waitForRun(ctx, run, { ...p.settings, deadline }, p.itemIndex, item.key);
			learnRun(item, run);
		}
		if (run.status === 'FAILED') cap?.refund(run);
		return await runToItem(ctx, run, p.settings, p.itemIndex, { requestKey: item.key, ...p.extraJson });
	};
	const width = await concurrencyOf(ctx, ready.length);
	const settled = await runPool(ready.length, width, job, !ctx.continueOnFail());
	for (const [n, r] of settled.entries()) {
		if (r?.ok) ledger[n].output = r.value;
		else if (r)
			Object.assign(ledger[n], { error: r.error, output: failedItem(r.error, ready[n].itemIndex, askedFor(ready[n])) });
	}
	for (const { itemIndex, error } of items.refused)
		ledger.push({
			...ledgerItem(itemIndex, '', 'refused'),
			output: failedItem(error, itemIndex, typedRequest(ctx, itemIndex)),
		});
	const addHints = (hints: NodeExecutionHint[]) => ctx.addExecutionHints(...hints);
	return stepOutput(ctx, ledger, { continueOnFail: ctx.continueOnFail(), batch: items.keys, addHints });
}
