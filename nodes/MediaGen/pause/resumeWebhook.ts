// Pause mode, the resume webhook: each call is the service delivering a finished run to this execution's
// resume URL, at the item's own address (its position in the batch). A genuine delivery (Standard Webhooks
// signature, as the trigger checks it) sends the runs its freed slot is owed and, once every item's run is
// final, resumes the execution with the same items, files and errors as Poll mode. A call that fails the
// signature check is still a wake-up call: its run is read back from the service (readBack.ts) and taken
// when final, with one warning in the output. Other calls get 401 and change nothing; repeats are harmless.
// It throws only on purpose: a failed run without Continue On Fail, or deliveries that all failed the
// signature check by the time limit, fail the execution.
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { verifyDelivery, type VerifyResult } from '../../shared/signature';
import { getIdentity } from '../../shared/transport';
import { runRecordProblem } from '../../shared/answers';
import { readFinalRun } from '../../shared/runReadBack';
import type { RunRecord } from '../../shared/records';
import { batchKeyOf, isPauseState, PAUSE_STATE_KEY, positionFromQuery, type PauseState } from './pauseState';
import { BatchView, type BatchReport } from './batchWalk';
import { ledgerOf, type BatchLedger } from './ledger';
import { refuseDelivery } from './refusedDelivery';
import { unsignedWarning, wakeTarget } from './readBack';
import { outputItems } from './resumeOutput';

/** After a call has built the output, others wait this long before they may try (n8n may not have resumed). */
const RESUME_CLAIM_MS = 30_000;
const SLOT_WAIT_MAX_MS = 15_000;

/** The batch the step recorded before pausing (node context data, saved with the waiting execution). */
function readPauseState(ctx: IWebhookFunctions): PauseState | undefined {
	const name = JSON.stringify(ctx.getNode().name);
	const value = ctx.evaluateExpression(`{{ $node[${name}].context[${JSON.stringify(PAUSE_STATE_KEY)}] }}`, 0);
	return isPauseState(value) ? value : undefined;
}

/** The item a delivered run belongs to: the position its URL names, if the request is that item's. */
function namedPosition(ctx: IWebhookFunctions, state: PauseState, run: RunRecord): number | undefined {
	const byId = state.items.findIndex((i) => i.runId === run.id);
	const position = byId >= 0 ? byId : positionFromQuery(ctx.getRequestObject().query, state);
	if (position === undefined) return undefined;
	const body = state.items[position].body;
	return body.model === run.model && body.prompt === run.prompt ? position : undefined;
}

/**
 * Takes the delivered run as its item's, but only when this process already knows that item's run to be this
 * one: a URL is no proof (a captured delivery could be replayed to another item's address), an ID is.
 */
function takeDelivery(ledger: BatchLedger, position: number | undefined, run: RunRecord): boolean {
	if (position === undefined || ledger.runs.get(position)?.run.id !== run.id) return false;
	ledger.learn(position, run, true);
	return true;
}

function claimActive(ledger: BatchLedger): boolean {
	return ledger.resumingSince !== undefined && Date.now() - ledger.resumingSince < RESUME_CLAIM_MS;
}

/**
 * Nothing of this batch is in flight (other batches hold every slot), so no delivery will come to move it on:
 * the call, its delivery already answered, keeps asking for a slot until it gets one or the limit passes.
 */
async function waitForSlot(view: BatchView, state: PauseState): Promise<BatchReport> {
	let report = view.report();
	for (let pauseMs = 1_000; !report.complete && report.inFlight === 0 && Date.now() <= state.deadline; ) {
		await sleep(Math.min(pauseMs, Math.max(0, state.deadline - Date.now()) + 1));
		pauseMs = Math.min(pauseMs * 1.5, SLOT_WAIT_MAX_MS);
		view.renewBudget();
		report = await view.walk();
	}
	return report;
}

type Answer = (status: number, body: IDataObject) => IWebhookResponseData;
type Handled =
	| { respond: IWebhookResponseData }
	| { stop: Error }
	| { build: { report: BatchReport; state: PauseState; ledger: BatchLedger } };

/**
 * A call that failed the signature check: taken when the run it names (one this batch knows) reads back from the
 * service as final; else refused (401), changing nothing. Returns the run read back, or what to answer.
 */
async function wakeUp(
	ctx: IWebhookFunctions,
	verdict: Extract<VerifyResult, { ok: false }>,
	state: PauseState | undefined,
	ledger: BatchLedger | undefined,
	body: unknown,
	answer: Answer,
): Promise<{ run: RunRecord; position: number } | Exclude<Handled, { build: unknown }>> {
	const target = state && ledger ? wakeTarget(state, ledger, body, ctx.getRequestObject().query) : undefined;
	// Already known to be final while other runs go on: nothing to learn or do, so no read and no walk.
	if (target && ledger!.isFinal(target.position) && ledger!.inFlight() > 0) {
		return { respond: answer(200, { received: true }) };
	}
	const itemIndex = target ? state!.items[target.position].item : undefined;
	const run = target ? await readFinalRun(ctx, await getIdentity(ctx), target.runId, itemIndex) : undefined;
	if (target && run) {
		ledger!.failedChecks++;
		ledger!.lastFailure = verdict.reason;
		ledger!.readBackTaken++;
		ctx.logger.warn(
			`Media Generation "${ctx.getNode().name}": a delivery to waiting execution ${ctx.getExecutionId()} failed ` +
				`the signature check (${verdict.reason}); its run ${run.id} read back as ${run.status}, so it was taken`,
		);
		return { run, position: target.position };
	}
	const stop = refuseDelivery(ctx, verdict, state, ledger);
	return stop ? { stop } : { respond: answer(verdict.status, { error: 'unauthorized', message: verdict.reason }) };
}

async function handleDelivery(ctx: IWebhookFunctions, answer: Answer): Promise<Handled> {
	const req = ctx.getRequestObject();
	const credentials = await ctx.getCredentials('mediaGenWebhookApi');
	const raw = (req.rawBody as Buffer | undefined) ?? Buffer.from('');
	const verdict = verifyDelivery(req.headers as Record<string, unknown>, raw, credentials);
	const state = readPauseState(ctx);
	const ledger = state ? ledgerOf(batchKeyOf(state, ctx.getExecutionId(), ctx.getNode().name)) : undefined;
	let run: unknown;
	try {
		run = JSON.parse(raw.toString('utf8'));
	} catch {
		run = undefined;
	}
	let readBack: { run: RunRecord; position: number } | undefined;
	if (!verdict.ok) {
		const woken = await wakeUp(ctx, verdict, state, ledger, run, answer);
		if (!('run' in woken)) return woken;
		readBack = woken;
		run = woken.run;
	}
	if (!state || !ledger || runRecordProblem(run)) {
		return { respond: answer(200, { received: true, ignored: 'not a run of this batch' }) };
	}
	ledger.verified++;
	const delivered = run as RunRecord;
	const position = readBack?.position ?? namedPosition(ctx, state, delivered);
	const view = new BatchView(ctx, await getIdentity(ctx), state, ledger);
	const taken = takeDelivery(ledger, position, delivered);
	let report = await view.walk();
	// A process that learnt this item's run only now (by its request key) can take the delivery now.
	if (!taken && takeDelivery(ledger, position, delivered)) report = { ...view.report(), later: report.later };
	if (!report.complete && Date.now() <= state.deadline) {
		// Runs still in flight: their deliveries carry the batch on (and retry what the service refused now).
		if (report.inFlight > 0 || claimActive(ledger)) return { respond: answer(200, { received: true }) };
		answer(200, { received: true });
		report = await waitForSlot(view, state);
		if (!report.complete && Date.now() <= state.deadline) return { respond: { noWebhookResponse: true } };
	}
	// Another delivery is building the output: only one may (n8n 1.x would resume twice).
	if (claimActive(ledger)) {
		return { respond: answer(503, { error: 'busy', message: 'Being resumed; deliver again later.' }) };
	}
	ledger.resumingSince = Date.now();
	if (!report.complete) {
		view.renewBudget();
		await view.readUnfinished(true);
		report = view.report();
	}
	return { build: { report, state, ledger } };
}

export async function resumeWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	const answer: Answer = (status, body) => {
		if (!res.headersSent) res.status(status).json(body);
		return { noWebhookResponse: true };
	};
	let handled: Handled;
	try {
		handled = await handleDelivery(this, answer);
	} catch (error) {
		this.logger.warn(
			`Media Generation "${this.getNode().name}": a resume call could not be handled: ${(error as Error).message}`,
		);
		return answer(503, { error: 'retry', message: 'Could not handle this delivery now; please deliver it again.' });
	}
	if ('respond' in handled) return handled.respond;
	if ('stop' in handled) throw handled.stop;
	const { report, state, ledger } = handled.build;
	// Answer the delivery now: downloads may take longer than the service waits for an answer.
	answer(200, { received: true, resumed: true });
	// Told once per execution: on the first item, or in the error that ends the step.
	const warning = ledger.readBackTaken > 0 ? unsignedWarning(this, ledger) : undefined;
	try {
		const items = await outputItems(this, state, report.outcomes).catch((error: Error) => {
			const described = error as Error & { description?: string | null };
			if (warning) described.description = [described.description, `Also: ${warning}`].filter(Boolean).join(' ');
			throw error;
		});
		if (warning && items[0]) items[0].json = { ...items[0].json, warning };
		return { noWebhookResponse: true, workflowData: [items] };
	} finally {
		ledger.resumingSince = Date.now();
	}
}
