// Pause mode's resume webhook: each call is a run's delivery (unsigned: signatureFailure.ts); it sends what freed slots
// are owed and, once all are final or past the limit, resumes with Poll's output. Answered within seconds (10 s).
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { runRecordProblem } from '../../shared/responseChecks';
import type { RunRecord } from '../../shared/records';
import { verifyDelivery } from '../../shared/signature';
import { identityOf } from '../../shared/transport';
import { requestKeyAdvice } from '../run/requestKey';
import { addRunDetails, errorItem, failedRunError, NOT_SENT_ITEM, runDetailsOf, sendFailure } from '../run/runErrors';
import { isErrorOutputItem, runToItem, stepOutput } from '../run/runOutput';
import { ledgerItem, type LedgerItem } from '../run/ledger';
import { batchMemoryOf, BatchWalk, reportOf, type BatchMemory } from './batchWalk';
import { batchKeysOf, PAUSE_STATE_KEY, pauseStateOf, type PauseState } from './pauseState';
import { callsAnonymously, unsignedWarning, wakeUp } from './signatureFailure';

export const resumeWebhooks: IWebhookDescription[] = [
	{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: '', isFullPath: true, restartWebhook: true },
];

/** After a call has built the output, others wait this long before they may try (n8n may not have resumed). */
const RESUME_CLAIM_MS = 30_000;
const SLOT_WAIT_MAX_MS = 15_000;

/** Takes a delivered run for the item this process knows it by: by ID, since a replay may target any item's URL. */
function takeDelivery(memory: BatchMemory, run: RunRecord): boolean {
	const position = memory.positionOf(run.id);
	if (position !== undefined) memory.learn(position, run, true);
	return position !== undefined;
}

function claimActive(memory: BatchMemory): boolean {
	return memory.resumingSince !== undefined && Date.now() - memory.resumingSince < RESUME_CLAIM_MS;
}

/** Nothing of the batch in flight (other batches hold the slots), so no delivery will come: ask until one frees. */
async function waitForSlot(batch: BatchWalk, state: PauseState, report: BatchReport): Promise<BatchReport> {
	for (let pauseMs = 1_000; !report.complete && report.inFlight === 0 && Date.now() <= state.deadline; ) {
		await sleep(Math.min(pauseMs, Math.max(0, state.deadline - Date.now()) + 1));
		pauseMs = Math.min(pauseMs * 1.5, SLOT_WAIT_MAX_MS);
		batch.renewBudget();
		report = await batch.walk();
	}
	return report;
}

type Answer = Parameters<typeof wakeUp>[5];
type BatchReport = ReturnType<typeof reportOf>;
/** A call that goes no further (an answer, or the error that fails the execution), or one that builds the output. */
type Handled =
	| { respond: IWebhookResponseData }
	| { stop: Error }
	| { build: { report: BatchReport; state: PauseState; memory: BatchMemory } };

async function handleDelivery(ctx: IWebhookFunctions, answer: Answer): Promise<Handled> {
	const req = ctx.getRequestObject();
	const credentials = await ctx.getCredentials('mediaGenWebhookApi');
	const raw = (req.rawBody as Buffer | undefined) ?? Buffer.from('');
	const verdict = verifyDelivery(req.headers as Record<string, unknown>, raw, credentials);
	// The batch the step recorded before pausing, in its context data (saved with the waiting execution).
	const name = JSON.stringify(ctx.getNode().name);
	const saved = ctx.evaluateExpression(`{{ $node[${name}].context[${JSON.stringify(PAUSE_STATE_KEY)}] }}`, 0);
	const state = pauseStateOf(saved);
	const memory = state && batchMemoryOf(state, ctx.getExecutionId(), ctx.getNode().name);
	let run: unknown;
	try {
		run = JSON.parse(raw.toString('utf8'));
	} catch {
		run = undefined;
	}
	if (!verdict.ok) {
		const woken = await wakeUp(ctx, verdict, state, memory, run, answer);
		if (!('run' in woken)) return woken;
		run = woken.run;
	}
	if (!state || !memory || runRecordProblem(run)) {
		return { respond: answer(200, { received: true, ignored: 'not a run of this batch' }) };
	}
	memory.verified++;
	const delivered = run as RunRecord;
	// A credential that cannot be read stops the call here, before the delivery is taken.
	await identityOf(ctx);
	const batch = new BatchWalk(ctx, state, memory);
	const taken = takeDelivery(memory, delivered);
	// Answered before any request to the service (a read may take a minute): the delivery is in memory now. n8n lets
	// a waiting webhook answer first and keep working (test/helpers/waitingHost.ts).
	answer(200, { received: true });
	let report = await batch.walk();
	// A process that learnt this item's run only now (by its request key) can take the delivery now.
	if (!taken && takeDelivery(memory, delivered)) report = reportOf(memory);
	else if (!taken && report.inFlight > 0) {
		// A run this process did not send: another process sends this batch's runs and may hear their deliveries, so a
		// run this one sent may have been delivered there. Read them all, or the batch waits for a call that never comes.
		await batch.readUnfinished(true);
		report = await batch.walk();
	}
	if (!report.complete && Date.now() <= state.deadline) {
		// Runs still in flight: their deliveries carry the batch on (and retry what the service refused now).
		if (report.inFlight > 0 || claimActive(memory)) return { respond: { noWebhookResponse: true } };
		report = await waitForSlot(batch, state, report);
		if (!report.complete && Date.now() <= state.deadline) return { respond: { noWebhookResponse: true } };
	}
	// Another call is building the output: only one may (n8n 1.x would resume twice).
	if (claimActive(memory)) return { respond: { noWebhookResponse: true } };
	memory.resumingSince = Date.now();
	batch.renewBudget();
	if (!report.complete) await batch.readUnfinished(true);
	// Also when complete: an item refused here for want of credits may have been sent by another process since.
	report = await batch.confirmUnsent();
	return { build: { report, state, memory } };
}

/** An item without a final run (timed out, or refused here and maybe sent elsewhere): what is known, how to get it. */
function noteFor(item: LedgerItem, state: PauseState): string {
	if (item.state === 'unsent') return `The time limit passed first. ${NOT_SENT_ITEM}. Run it again to make it.`;
	const rerun =
		`Run this step again with ${requestKeyAdvice(batchKeysOf(state))}: you get its run if it was made, without ` +
		'paying again, or a new one if not.';
	if (item.outOfCredits)
		return (
			'This n8n process saw it refused for want of credits, but another n8n process may have submitted it after a ' +
			`refund freed credits, so it may have been charged. ${rerun}`
		);
	if (item.cappedHere)
		return (
			'This n8n process held it back for Max Credits per Execution, but another n8n process, which knew other ' +
			`runs' costs, may have submitted it, so it may have been charged. ${rerun}`
		);
	const unconfirmed = `The time limit passed before this n8n process could confirm whether it was submitted. ${rerun}`;
	if (item.state !== 'answerLost') return unconfirmed;
	return (
		'Its submission was sent, but the answer never reached n8n, and sending it again with the same request key did ' +
		`not bring its run back before the time limit: the run may have been made and charged. ${unconfirmed}`
	);
}

function timedOutItem(state: PauseState, position: number, item: LedgerItem): INodeExecutionData {
	const { run } = item;
	const json: IDataObject = {
		...(run ? (run as unknown as IDataObject) : { status: item.state === 'unsent' ? 'NOT_SUBMITTED' : 'UNCONFIRMED' }),
		...state.items[position].extraJson,
		requestKey: item.key,
		// Refused for credits or by the cap here, possibly sent elsewhere: not a time-out.
		...(item.outOfCredits || item.cappedHere ? {} : { timedOut: true }),
		note: run
			? 'Not finished within the time limit. The run keeps going: pick it up with Generation → Wait ' +
				`(run ID ${run.id}).`
			: noteFor(item, state),
	};
	if (run) json.runId = run.id;
	if (item.state === 'unsent') json.nothingCharged = true;
	return { json, pairedItem: { item: item.itemIndex } };
}

/** One item's output, or its error (returned: stepOutput decides between error item and failure). */
async function itemFor(
	ctx: IWebhookFunctions,
	state: PauseState,
	position: number,
	item: LedgerItem,
): Promise<INodeExecutionData | Error> {
	const entry = state.items[position];
	const requestKey = item.key;
	if (item.state === 'refusedAfterLost')
		return sendFailure(ctx, item, batchKeysOf(state), state.deadline - state.pausedAt);
	if (item.state === 'refused') {
		const refusal = item.failure as { message?: string; description?: string | null; context?: IDataObject };
		const error = new NodeOperationError(ctx.getNode(), String(refusal?.message ?? refusal), {
			description: refusal?.description ?? undefined,
			itemIndex: entry.item,
		});
		if (refusal?.context) error.context = { ...refusal.context };
		return addRunDetails(error, { requestKey, nothingCharged: true });
	}
	if (item.state !== 'finished' || !item.run) return timedOutItem(state, position, item);
	if (item.run.status !== 'SUCCEEDED') return failedRunError(ctx, item.run, entry.item, requestKey);
	const settings = { download: entry.download, binaryProperty: entry.binaryProperty };
	const extra = { requestKey, ...entry.extraJson };
	return await runToItem(ctx, item.run, settings, entry.item, extra).catch((error: Error) => error);
}

async function outputItems(
	ctx: IWebhookFunctions,
	state: PauseState,
	ledger: LedgerItem[],
): Promise<INodeExecutionData[]> {
	// Copies: the process's memory of the batch never holds output files.
	const results: LedgerItem[] = state.invalid.map((bad) => ({
		...ledgerItem(bad.item, '', 'refused'),
		// Refused by its checks before anything was sent.
		output: errorItem(addRunDetails({ ...bad }, { nothingCharged: true }), bad.item),
	}));
	for (const [position, item] of ledger.entries()) {
		const { item: itemIndex, body, extraJson } = state.items[position];
		const result = await itemFor(ctx, state, position, item);
		if (!(result instanceof Error)) results.push({ ...item, output: result });
		else {
			// What it asked for beside the error, as Poll mode's failed items have it.
			const request: IDataObject = { kind: body.kind, model: body.model, prompt: body.prompt, ...extraJson };
			// Sent before the pause, its answer lost, until its time limit passed: as an item timed out after it.
			if (state.items[position].refused?.timedOut && item.state === 'refusedAfterLost') request.timedOut = true;
			results.push({ ...item, error: result, output: errorItem(result, itemIndex, request) });
		}
	}
	return stepOutput(ctx, results, { continueOnFail: state.continueOnFail, batch: batchKeysOf(state) });
}

/** Puts the warning on the first item, or in the message of one bound for n8n's error output (two fields only). */
function withWarning(items: INodeExecutionData[], warning: string): void {
	const target = items.find((i) => !isErrorOutputItem(i.json)) ?? items[0];
	if (!target) return;
	if (isErrorOutputItem(target.json)) target.json.message = `${String(target.json.message)} Also: ${warning}`;
	else target.json = { ...target.json, warning };
}

export async function resumeWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	const answer: Answer = (status, body) => {
		if (!res.headersSent) res.status(status).json(body);
		return { noWebhookResponse: true };
	};
	const handled = await handleDelivery(this, answer).catch((error: Error): Handled => {
		this.logger.warn(`Media Generation "${this.getNode().name}": a resume call could not be handled: ${error.message}`);
		return {
			respond: answer(503, { error: 'retry', message: 'Could not handle this delivery now; please deliver it again.' }),
		};
	});
	if ('respond' in handled) return handled.respond;
	if ('stop' in handled) throw handled.stop;
	const { report, state, memory } = handled.build;
	// Answer the delivery now: downloads may take longer than the service waits for an answer.
	answer(200, { received: true, resumed: true });
	// Told once per execution: on the first item, or in the error that ends the step.
	const warning = memory.readBackTaken > 0 ? unsignedWarning(this, memory, await callsAnonymously(this)) : undefined;
	try {
		const items = await outputItems(this, state, report.items).catch((error: Error) => {
			// A resume call's error reaches the user only as the execution's, in a notification showing the message
			// alone (n8n gives the step an empty item), so the refund goes into the message.
			const { refunded } = runDetailsOf(error);
			if (refunded !== undefined)
				error.message += ` (${refunded} credit${refunded === 1 ? '' : 's'} refunded automatically)`;
			const described = error as Error & { description?: string | null };
			if (warning) described.description = [described.description, `Also: ${warning}`].filter(Boolean).join(' ');
			throw error;
		});
		if (warning) withWarning(items, warning);
		return { noWebhookResponse: true, workflowData: [items] };
	} finally {
		memory.resumingSince = Date.now();
	}
}
