// Pause mode: the step's output once the batch is done or its time limit has passed. The same items, files,
// pairedItem and per-item errors as Poll mode; runs not final by the limit come out marked `timedOut`.
import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PauseState } from './pauseState';
import { withPaidRuns, type PaidRun } from '../run/paidRuns';
import { requestKeyAdvice, savedBatchKeys } from '../run/requestKey';
import { addRunDetails, errorItem, failedRunError, runDetailsOf } from '../run/runErrors';
import { itemsInInputOrder, runToItem, withErrorOutput } from '../run/runOutput';
import type { Outcome } from './batchWalk';

const NOTES: Record<'unsent' | 'unconfirmed', (state: PauseState) => string> = {
	unsent: () => 'Not submitted within the time limit, so nothing was charged for it. Run it again to make it.',
	unconfirmed: (state) =>
		'The time limit passed before this n8n process could confirm whether it was submitted. Run this step again ' +
		`with ${requestKeyAdvice(savedBatchKeys(state.items, state.invalid.length))}: you get its run if it was ` +
		'made, without paying again, or a new one if not.',
};

/** Sent, its answer lost and its run never brought back: said before the advice given for an unconfirmed item. */
const UNANSWERED =
	'Its submission was sent, but the answer never reached n8n, and sending it again with the same request key did ' +
	'not bring its run back before the time limit: the run may have been made and charged.';

function noteFor(kind: Outcome['kind'], state: PauseState): string {
	if (kind === 'unanswered') return `${UNANSWERED} ${NOTES.unconfirmed(state)}`;
	return NOTES[kind === 'unconfirmed' ? 'unconfirmed' : 'unsent'](state);
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

/**
 * What an item of a stopped batch was or may have been charged for. A run is charged at submission: listed unless
 * FAILED (refunded), also CANCELED (the service does not say a canceled run is refunded) and still running. An
 * item sent whose answer never came, or refused after such a send, may have been charged (its key gets it back);
 * one this process cannot tell was sent is named as such. Never sent: nothing.
 */
function chargedOf(state: PauseState, outcome: Outcome): PaidRun[] {
	const entry = state.items[outcome.position];
	const item = { itemIndex: entry.item, requestKey: String(entry.body.requestKey) };
	switch (outcome.kind) {
		case 'finished':
		case 'running': {
			const { id, cost, status } = outcome.run;
			return status === 'FAILED' ? [] : [{ ...item, id, cost, status }];
		}
		case 'refused':
			return outcome.mayBeCharged ? [item] : [];
		case 'unanswered':
			return [item];
		case 'unconfirmed':
			return [{ ...item, unconfirmed: true }];
		default:
			return [];
	}
}

/**
 * Every item in input order: the batch's outcomes and the items refused before pausing. Without
 * Continue On Fail the first failure fails the execution, naming the runs that succeeded beside it.
 */
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
		const paid = outcomes
			.filter((o) => state.items[o.position].item !== first.item)
			.flatMap((o) => chargedOf(state, o));
		withPaidRuns(first.error, paid, [], savedBatchKeys(state.items, state.invalid.length));
		// A resume call's error reaches the user only as the execution's: a notification showing the message alone
		// (n8n gives the step an empty item, see resumeWebhook.ts). So the refund goes into the message.
		const { refunded } = runDetailsOf(first.error);
		if (refunded !== undefined) {
			first.error.message += ` (${refunded} credit${refunded === 1 ? '' : 's'} refunded automatically)`;
		}
		return await Promise.reject(first.error);
	}
	return withErrorOutput(ctx, itemsInInputOrder(byItem));
}
