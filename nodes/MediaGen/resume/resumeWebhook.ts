// Pause mode, the resume webhook: each call is the service delivering a finished run to this execution's
// resume URL. A genuine delivery (Standard Webhooks signature, as the trigger checks it) sends the runs its
// freed slot is owed and, once every item's run is final, resumes the execution with the same items, files
// and errors as Poll mode. Forged or stale calls get 401 and change nothing; repeats are harmless (nothing is
// kept between calls). It throws only on purpose: a failed run without Continue On Fail fails the execution.
import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { verifyWebhook } from '../../MediaGenTrigger/signature';
import { getIdentity } from '../transport';
import { runRecordProblem } from '../transport/answers';
import type { RunRecord } from '../helpers/catalogueTypes';
import { isPauseState, PAUSE_STATE_KEY, positionFromQuery, type PauseState } from '../helpers/pauseState';
import { withPaidRuns } from '../helpers/paidRuns';
import { addRunDetails, errorItem, failedRunError } from '../helpers/runErrors';
import { finishedRunToItem } from '../helpers/runOutput';
import { BatchView, walkBatch, type Outcome } from './batchWalk';

function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
	const v = headers[name];
	return Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
}

/** The batch the step recorded before pausing (node context data, saved with the waiting execution). */
function readPauseState(ctx: IWebhookFunctions): PauseState | undefined {
	const name = JSON.stringify(ctx.getNode().name);
	const value = ctx.evaluateExpression(`{{ $node[${name}].context[${JSON.stringify(PAUSE_STATE_KEY)}] }}`, 0);
	return isPauseState(value) ? value : undefined;
}

/** Which item a delivered run belongs to: the position its URL names, checked against the request. */
function positionOf(ctx: IWebhookFunctions, state: PauseState, run: RunRecord): number | undefined {
	const named = positionFromQuery(ctx.getRequestObject().query, state);
	const byId = state.items.findIndex((i) => i.runId === run.id);
	const position = byId >= 0 ? byId : named;
	if (position === undefined) return undefined;
	const body = state.items[position].body;
	return body.model === run.model && body.prompt === run.prompt ? position : undefined;
}

function timedOutItem(state: PauseState, outcome: Outcome): INodeExecutionData {
	const entry = state.items[outcome.position];
	const run = 'run' in outcome ? outcome.run : undefined;
	const json: IDataObject = {
		...(run ? (run as unknown as IDataObject) : { status: 'NOT_SUBMITTED' }),
		...entry.extraJson,
		requestKey: entry.body.requestKey,
		timedOut: true,
		note: run
			? `Not finished within the time limit. The run keeps going: pick it up with Generation → Wait (run ID ${run.id}).`
			: 'Not submitted within the time limit, so nothing was charged for it. Run it again to make it.',
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
	return await finishedRunToItem(ctx, outcome.run, settings, entry.item, extra).catch((error: Error) => error);
}

/**
 * Every item in input order: the batch's outcomes and the items refused before pausing. Without
 * Continue On Fail the first failure fails the execution, naming the runs that succeeded beside it.
 */
async function outputItems(
	ctx: IWebhookFunctions,
	state: PauseState,
	outcomes: Outcome[],
): Promise<INodeExecutionData[]> {
	const byItem = new Map<number, INodeExecutionData>();
	const failures: Array<{ item: number; error: Error }> = [];
	for (const bad of state.invalid) byItem.set(bad.item, errorItem(bad, bad.item));
	for (const outcome of outcomes) {
		const item = state.items[outcome.position].item;
		const result = await itemFor(ctx, state, outcome);
		if (result instanceof Error) {
			failures.push({ item, error: result });
			byItem.set(item, errorItem(result, item));
		} else byItem.set(item, result);
	}
	const first = failures.sort((a, b) => a.item - b.item)[0];
	if (first && !state.continueOnFail) {
		const paid = outcomes.flatMap((o) =>
			o.kind === 'finished' && o.run.status === 'SUCCEEDED'
				? [{ id: o.run.id, itemIndex: state.items[o.position].item, cost: o.run.cost, status: o.run.status }]
				: [],
		);
		withPaidRuns(first.error, paid);
		return await Promise.reject(first.error);
	}
	return [...byItem.keys()].sort((a, b) => a - b).map((i) => byItem.get(i)!);
}

export async function resumeWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const res = this.getResponseObject();
	const answer = (status: number, body: IDataObject): IWebhookResponseData => {
		if (!res.headersSent) res.status(status).json(body);
		return { noWebhookResponse: true };
	};
	let report: { outcomes: Outcome[]; state: PauseState } | undefined;
	try {
		const credentials = await this.getCredentials('mediaGenWebhookApi');
		const headers = req.headers as Record<string, unknown>;
		const raw = (req.rawBody as Buffer | undefined) ?? Buffer.from('');
		const verdict = verifyWebhook(
			{
				id: headerOf(headers, 'webhook-id'),
				timestamp: headerOf(headers, 'webhook-timestamp'),
				signature: headerOf(headers, 'webhook-signature'),
			},
			raw,
			{ current: credentials.secret, previous: credentials.previousSecret },
		);
		if (!verdict.ok) return answer(verdict.status, { error: 'unauthorized', message: verdict.reason });
		const state = readPauseState(this);
		let run: unknown;
		try {
			run = JSON.parse(raw.toString('utf8'));
		} catch {
			run = undefined;
		}
		if (!state || runRecordProblem(run)) return answer(200, { received: true, ignored: 'not a run of this batch' });
		const delivered = run as RunRecord;
		const position = positionOf(this, state, delivered);
		const view = new BatchView(this, await getIdentity(this), state);
		if (position !== undefined) view.runs.set(position, delivered);
		await view.readList();
		view.matchList();
		// Sends what the freed slots are owed, and tells whether every item is final.
		const walked = await walkBatch(view, state);
		if (walked.later) return answer(503, { error: 'busy', message: `Will continue on the next try: ${walked.later}` });
		if (!walked.complete && Date.now() <= state.deadline) return answer(200, { received: true });
		report = { outcomes: walked.outcomes, state };
	} catch (error) {
		this.logger.warn(
			`Media Generation "${this.getNode().name}": a resume call could not be handled: ${(error as Error).message}`,
		);
		return answer(503, { error: 'retry', message: 'Could not handle this delivery now; please deliver it again.' });
	}
	// Answer the delivery now: downloads may take longer than the service waits for an answer.
	answer(200, { received: true, resumed: true });
	const items = await outputItems(this, report.state, report.outcomes);
	return { noWebhookResponse: true, workflowData: [items] };
}
