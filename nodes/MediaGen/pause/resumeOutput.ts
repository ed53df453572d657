// Pause mode: the step's output once the batch is done or its time limit has passed. The same items, files,
// pairedItem and per-item errors as Poll mode; runs not final by the limit come out marked `timedOut`.
import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { withPaidRuns } from '../run/paidRuns';
import { requestKeyAdvice, savedBatchKeys } from '../run/requestKey';
import { addRunDetails, errorItem, failedRunError, runDetailsOf } from '../run/runErrors';
import { itemsInInputOrder, runToItem, withErrorOutput } from '../run/runOutput';
import { paidRunsOf, type Outcome } from './batchWalk';
import type { PauseState } from './pauseState';

/** An item that timed out without a known run: what is known of it, and how to get it without paying again. */
function noteFor(kind: Outcome['kind'], state: PauseState): string {
	if (kind === 'unsent')
		return 'Not submitted within the time limit, so nothing was charged for it. Run it again to make it.';
	const unconfirmed =
		'The time limit passed before this n8n process could confirm whether it was submitted. Run this step again ' +
		`with ${requestKeyAdvice(savedBatchKeys(state.items, state.invalid.length))}: you get its run if it was ` +
		'made, without paying again, or a new one if not.';
	if (kind !== 'unanswered') return unconfirmed;
	return (
		'Its submission was sent, but the answer never reached n8n, and sending it again with the same request key did ' +
		`not bring its run back before the time limit: the run may have been made and charged. ${unconfirmed}`
	);
}

function timedOutItem(state: PauseState, outcome: Outcome): INodeExecutionData {
	const entry = state.items[outcome.position];
	const run = 'run' in outcome ? outcome.run : undefined;
	const json: IDataObject = {
		...(run
			? (run as unknown as IDataObject)
			: { status: outcome.kind === 'unsent' ? 'NOT_SUBMITTED' : 'UNCONFIRMED' }),
		...entry.extraJson,
		requestKey: entry.body.requestKey,
		timedOut: true,
		note: run
			? `Not finished within the time limit. The run keeps going: pick it up with Generation → Wait (run ID ${run.id}).`
			: noteFor(outcome.kind, state),
	};
	if (run) json.runId = run.id;
	return { json, pairedItem: { item: entry.item } };
}

/** One item's output; an error is returned (not thrown) so the caller decides between error item and failure. */
async function itemFor(
	ctx: IWebhookFunctions,
	state: PauseState,
	outcome: Outcome,
): Promise<INodeExecutionData | Error> {
	const entry = state.items[outcome.position];
	const requestKey = String(entry.body.requestKey);
	if (outcome.kind === 'refused') {
		const error = new NodeOperationError(ctx.getNode(), outcome.message, {
			description: outcome.description,
			itemIndex: entry.item,
		});
		return addRunDetails(error, { requestKey });
	}
	if (outcome.kind !== 'finished') return timedOutItem(state, outcome);
	if (outcome.run.status !== 'SUCCEEDED') return failedRunError(ctx, outcome.run, entry.item, requestKey);
	const settings = { download: entry.download, binaryProperty: entry.binaryProperty };
	const extra = { requestKey, ...entry.extraJson };
	return await runToItem(ctx, outcome.run, settings, entry.item, extra).catch((error: Error) => error);
}

/** Every item in input order; without Continue On Fail the first failure fails the execution, naming the paid runs. */
export async function outputItems(
	ctx: IWebhookFunctions,
	state: PauseState,
	outcomes: Outcome[],
): Promise<INodeExecutionData[]> {
	const byItem = new Map<number, INodeExecutionData>();
	const failures: Array<{ item: number; error: Error }> = [];
	for (const bad of state.invalid) byItem.set(bad.item, errorItem(bad, bad.item));
	for (const outcome of outcomes) {
		const { item, body, extraJson } = state.items[outcome.position];
		const result = await itemFor(ctx, state, outcome);
		if (result instanceof Error) {
			failures.push({ item, error: result });
			// What it asked for beside the error, as Poll mode's failed items have it.
			const request = { kind: body.kind, model: body.model, prompt: body.prompt, ...extraJson };
			byItem.set(item, errorItem(result, item, request));
		} else byItem.set(item, result);
	}
	const first = failures.sort((a, b) => a.item - b.item)[0];
	if (first && !state.continueOnFail) {
		const others = outcomes.filter((o) => state.items[o.position].item !== first.item);
		withPaidRuns(first.error, paidRunsOf(state, others), [], savedBatchKeys(state.items, state.invalid.length));
		// A resume call's error reaches the user only as the execution's, in a notification showing the message
		// alone (n8n gives the step an empty item), so the refund goes into the message.
		const { refunded } = runDetailsOf(first.error);
		if (refunded !== undefined) {
			first.error.message += ` (${refunded} credit${refunded === 1 ? '' : 's'} refunded automatically)`;
		}
		throw first.error;
	}
	return withErrorOutput(ctx, itemsInInputOrder(byItem));
}
