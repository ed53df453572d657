// The batch path of Generate and Run Look. First every item is read and checked (nothing is spent);
// with Continue On Fail off, one bad item stops the whole batch before the first submission. Then the
// items run as many at once as the account allows, inside the spending cap; without Continue On Fail no
// new item starts after a failure, and the error lists the runs already paid for so none is lost.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Identity } from '../../shared/transport';
import { runPool } from './pool';
import { concurrencyOf } from '../run/concurrency';
import type { RunRecord } from '../../shared/records';
import { uniquePerItem } from '../run/requestKey';
import { addRunDetails, type ItemRequest } from '../run/runErrors';
import { failedItem, listItems, prepareAll, typedRequest } from './prepareItems';
import { paidRunsNote } from '../run/paidRuns';
import { pauseRuns } from '../pause/pauseRuns';
import { priceRequestOf, withFileAddresses, type PreparedRun } from '../run/preparedRun';
import { runToItem } from '../run/runOutput';
import { priceBookFor } from '../cost/runHistory';
import {
	CAP_ADVICE,
	CAP_BOUND,
	capRefusalMessage,
	capStore,
	isCapRefusal,
	SpendingCap,
	type CapRefusal,
} from '../run/spendingCap';
import { submitRun, type SubmitContext } from '../run/submission';
import { timeLimitMs } from '../run/timeLimit';
import { waitForRun } from '../run/waitForRun';

/** What a prepared item asks for, for its error item. */
function requestOf(p: PreparedRun): ItemRequest {
	return { kind: p.body.kind, model: p.body.model, prompt: p.body.prompt, options: p.body.options, ...p.extraJson };
}

function capError(ctx: IExecuteFunctions, itemIndex: number, refusal: CapRefusal) {
	const error = new NodeOperationError(ctx.getNode(), capRefusalMessage(refusal), {
		description: CAP_ADVICE,
		itemIndex,
	});
	return addRunDetails(error, { errorCode: 'spending_cap' });
}

function upfrontCapError(ctx: IExecuteFunctions, cap: SpendingCap, overrun: { total: number; count: number }) {
	const spent = cap.spent ? ` (${cap.spent} already spent by this step in this execution)` : '';
	const runs = overrun.count === 1 ? 'this run would cost' : `these ${overrun.count} runs would cost`;
	return addRunDetails(
		new NodeOperationError(
			ctx.getNode(),
			`Max Credits per Execution is ${cap.cap}: ${runs} ${overrun.total} credits at the prices known in advance${spent}`,
			{
				description:
					'Nothing was submitted and nothing was charged. Raise the cap, send fewer items, or pick a cheaper model. ' +
					CAP_BOUND,
			},
		),
		{ errorCode: 'spending_cap' },
	);
}

/** Paid runs of a batch that stops, for the error: so the user can fetch them with Generation → Get. */
function stoppedBatchNote(runs: Map<number, RunRecord>, failedItem: number, notStarted: number[]): string {
	const paid = [...runs.entries()]
		.filter(([i, r]) => i !== failedItem && r.status !== 'FAILED' && r.cost >= 0)
		.map(([itemIndex, r]) => ({ id: r.id, itemIndex, cost: r.cost, status: r.status }));
	const parts = [paidRunsNote(paid)];
	if (notStarted.length) parts.push(`Items ${listItems(notStarted)} were not started and cost nothing.`);
	return parts.filter(Boolean).join(' ');
}

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

	const capValue = ready.find((p) => p.maxCredits !== undefined)?.maxCredits;
	// The total is kept in the node's context data, saved with the execution: it counts every pass of this
	// step in this execution wherever the pass runs (after a pause, on another worker).
	const node = ctx.getNode();
	const store = () => capStore(ctx.getExecutionId(), node.id ?? node.name, () => ctx.getContext('node'));
	// The prices: the catalogue's, this account's history (read only when a price needs it), the runs sent here.
	const cap =
		capValue === undefined
			? undefined
			: new SpendingCap(capValue, store(), await priceBookFor(ctx, identity, ready.map(priceRequestOf)));
	if (cap && !continueOnFail) {
		const overrun = cap.firstCertainOverrun(ready.map(priceRequestOf));
		if (overrun) throw upfrontCapError(ctx, cap, overrun);
	}

	if (ready[0]?.settings.mode === 'pause') {
		return await pauseRuns(ctx, identity, ready, continueOnFail ? bad : [], cap);
	}

	// 2. Run them, as many at once as the account allows.
	const claimed = new Set<string>();
	const runs = new Map<number, RunRecord>();
	const job = async (n: number): Promise<INodeExecutionData> => {
		const p = ready[n];
		// The time limit covers the whole item: waiting for a slot or a rate window counts too.
		const deadline = Date.now() + timeLimitMs(String(p.body.kind), p.settings.timeoutMs);
		const s: SubmitContext = { ctx, identity, settings: p.settings, itemIndex: p.itemIndex, claimed, deadline };
		p.body = await withFileAddresses(ctx, identity, p);
		const accepted = cap
			? await cap.submit(
					priceRequestOf(p),
					async () => await submitRun(s, p.body),
					() => (p.body.audioUrl === undefined ? undefined : String(p.body.audioUrl)),
				)
			: await submitRun(s, p.body);
		if (isCapRefusal(accepted)) throw capError(ctx, p.itemIndex, accepted);
		let run = accepted;
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
		const note = stoppedBatchNote(runs, itemIndex, notStarted);
		const e = error as { description?: string | null; context?: IDataObject };
		if (note) e.description = `${e.description ? `${e.description}\n\n` : ''}${note}`;
		const paid = [...runs.entries()]
			.filter(([i]) => i !== itemIndex)
			.map(([i, r]) => ({ item: i + 1, runId: r.id, status: r.status, cost: r.cost }));
		if (paid.length && e.context) e.context.paidRuns = paid;
		throw error;
	}
	return [...out.keys()].sort((a, b) => a - b).map((i) => out.get(i)!);
}
