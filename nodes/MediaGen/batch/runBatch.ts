// The batch path of Generate and Run Look. First every item is read and checked (nothing is spent);
// with Continue On Fail off, one bad item stops the whole batch before the first submission. Then the
// items run as many at once as the account allows, inside the spending cap; without Continue On Fail no
// new item starts after a failure, and the error lists the runs already paid for so none is lost.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Identity } from '../../shared/transport';
import type { RunRecord } from '../../shared/records';
import { pauseRuns } from '../pause/pauseRuns';
import { concurrencyOf } from '../run/concurrency';
import { withPaidRuns } from '../run/paidRuns';
import { withFileAddresses, type PreparedRun } from '../run/preparedRun';
import { uniquePerItem } from '../run/requestKey';
import type { ItemRequest } from '../run/runErrors';
import { itemsInInputOrder, runToItem } from '../run/runOutput';
import { spendingCapFor, submitUnderCap } from '../run/spendingCap';
import { submitRun, type SubmitContext } from '../run/submission';
import { itemDeadline } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';
import { runPool } from './pool';
import { failedItem, prepareAll, typedRequest } from './prepareItems';

/** What a prepared item asks for, for its error item. */
function requestOf(p: PreparedRun): ItemRequest {
	return { kind: p.body.kind, model: p.body.model, prompt: p.body.prompt, options: p.body.options, ...p.extraJson };
}

/**
 * Generate's and Run Look's executeAll: checks every item, applies the spending cap, then runs the items (Poll
 * mode) or hands them to pause mode. Continue On Fail is caught here per item: a failed item becomes an error item
 * beside the others (the router only catches an error that stops the whole batch).
 */
export async function runBatch(
	ctx: IExecuteFunctions,
	identity: Identity,
	prepare: (itemIndex: number) => Promise<PreparedRun>,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	// 1. Read and check every item before anything can be charged.
	const { ready, bad } = await prepareAll(ctx, prepare);
	const keys = uniquePerItem(
		ready.map((p) => ({ itemIndex: p.itemIndex, key: String(p.body.requestKey), typed: p.typedKey })),
	);
	for (const p of ready) p.body.requestKey = keys.get(p.itemIndex);

	const cap = await spendingCapFor(ctx, identity, ready);

	if (ready[0]?.settings.mode === 'pause') {
		return await pauseRuns(ctx, identity, ready, continueOnFail ? bad : [], cap);
	}

	// 2. Run them, as many at once as the account allows.
	const claimed = new Set<string>();
	const runs = new Map<number, RunRecord>();
	const job = async (n: number): Promise<INodeExecutionData> => {
		const p = ready[n];
		// The time limit covers the whole item: waiting for a slot or a rate window counts too.
		const deadline = itemDeadline(String(p.body.kind), p.settings.timeoutMs);
		const s: SubmitContext = { ctx, identity, settings: p.settings, itemIndex: p.itemIndex, claimed, deadline };
		p.body = await withFileAddresses(ctx, identity, p);
		let run = await submitUnderCap(cap, ctx.getNode(), p, async () => await submitRun(s, p.body));
		runs.set(p.itemIndex, run);
		const requestKey = String(p.body.requestKey);
		if (p.settings.wait) {
			run = await waitForRun(ctx, identity, run, { ...p.settings, deadline }, p.itemIndex, requestKey);
			runs.set(p.itemIndex, run);
		}
		if (run.status === 'FAILED') cap?.refund(run);
		return await runToItem(ctx, run, p.settings, p.itemIndex, { requestKey, ...p.extraJson });
	};
	const width = await concurrencyOf(ctx, identity, ready.length);
	const results = await runPool(ready.length, width, job, !continueOnFail);

	// 3. Outputs in input order.
	const out = new Map<number, INodeExecutionData>();
	for (const { itemIndex, error } of bad)
		out.set(itemIndex, failedItem(error, itemIndex, typedRequest(ctx, itemIndex)));
	let firstFailure: { itemIndex: number; error: unknown } | undefined;
	const notStarted: number[] = [];
	for (const [n, r] of results.entries()) {
		const itemIndex = ready[n].itemIndex;
		if (!r) notStarted.push(itemIndex);
		else if (r.ok) out.set(itemIndex, r.value);
		else if (continueOnFail) out.set(itemIndex, failedItem(r.error, itemIndex, requestOf(ready[n])));
		else firstFailure ??= { itemIndex, error: r.error };
	}
	if (firstFailure) {
		const { error, itemIndex } = firstFailure;
		// The runs already paid for, so the user can fetch them with Generation → Get.
		const paidFor = [...runs.entries()]
			.filter(([i, r]) => i !== itemIndex && r.status !== 'FAILED' && r.cost >= 0)
			.map(([i, r]) => ({ id: r.id, itemIndex: i, cost: r.cost, status: r.status }));
		const e = withPaidRuns(error as { description?: string | null; context?: IDataObject }, paidFor, notStarted);
		const paid = [...runs.entries()]
			.filter(([i]) => i !== itemIndex)
			.map(([i, r]) => ({ item: i + 1, runId: r.id, status: r.status, cost: r.cost }));
		if (paid.length && e.context) e.context.paidRuns = paid;
		throw error;
	}
	return itemsInInputOrder(out);
}
