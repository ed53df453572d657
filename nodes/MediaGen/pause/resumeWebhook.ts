// Pause mode, the resume webhook: each call is the service delivering a finished run to this execution's
// resume URL, at the item's own address (its position in the batch). A genuine delivery (Standard Webhooks
// signature, as the trigger checks it) sends the runs its freed slot is owed and, once every item's run is
// final, resumes the execution with the same items, files and errors as Poll mode. A call that fails the
// signature check is still a wake-up call: its run is read back from the service (readBack.ts) and taken
// when final, with one warning in the output. Other calls get 401 and change nothing; repeats are harmless.
// A genuine delivery is answered before any request to the service, and a read-back within seconds, so the service
// (which waits 10 s) never times a call out however slow it is; the call's work goes on after its answer.
// It throws only on purpose: a failed run without Continue On Fail, or deliveries that all failed the
// signature check by the time limit, fail the execution. The webhook's description, which the node lists, is here
// too: n8n serves it under the execution's resume URL (/webhook-waiting/<execution id>?signature=…) only while
// the execution waits, and checks that token itself.
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { verifyDelivery, type VerifyResult } from '../../shared/signature';
import { identityOf } from '../../shared/transport';
import { runRecordProblem } from '../../shared/responseChecks';
import { finishAfterAnswering, readFinalRun } from '../../shared/runReadBack';
import type { RunRecord } from '../../shared/records';
import { batchKeyOf, isPauseState, PAUSE_STATE_KEY, positionFromQuery, type PauseState } from './pauseState';
import { BatchWalk, type BatchReport } from './batchWalk';
import { batchMemoryOf, type BatchMemory } from './batchMemory';
import { refuseDelivery } from './refusedDelivery';
import { callsAnonymously, unsignedWarning, wakeTarget, type WakeTarget } from './readBack';
import { isErrorOutputItem } from '../run/runOutput';
import { outputItems } from './resumeOutput';

export const resumeWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		path: '',
		isFullPath: true,
		restartWebhook: true,
	},
];

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
function takeDelivery(memory: BatchMemory, position: number | undefined, run: RunRecord): boolean {
	if (position === undefined || memory.runs.get(position)?.run.id !== run.id) return false;
	memory.learn(position, run, true);
	return true;
}

function claimActive(memory: BatchMemory): boolean {
	return memory.resumingSince !== undefined && Date.now() - memory.resumingSince < RESUME_CLAIM_MS;
}

/**
 * Nothing of this batch is in flight (other batches hold every slot), so no delivery will come to move it on:
 * the call, its delivery already answered, keeps asking for a slot until it gets one or the limit passes.
 */
async function waitForSlot(batch: BatchWalk, state: PauseState): Promise<BatchReport> {
	let report = batch.report();
	for (let pauseMs = 1_000; !report.complete && report.inFlight === 0 && Date.now() <= state.deadline; ) {
		await sleep(Math.min(pauseMs, Math.max(0, state.deadline - Date.now()) + 1));
		pauseMs = Math.min(pauseMs * 1.5, SLOT_WAIT_MAX_MS);
		batch.renewBudget();
		report = await batch.walk();
	}
	return report;
}

type Answer = (status: number, body: IDataObject) => IWebhookResponseData;

/**
 * Reads back the run a call that failed the signature check names (calls naming the same run share one read).
 * When the service is slow, the call is answered 503 first, so the service delivers it again, and the read goes
 * on: what it finds is taken by this call, and the repeat then finds the run known.
 */
async function readBackInTime(
	ctx: IWebhookFunctions,
	state: PauseState,
	memory: BatchMemory,
	target: WakeTarget,
	answer: Answer,
): Promise<RunRecord | undefined> {
	let reading = memory.readingBack.get(target.runId);
	if (!reading) {
		const itemIndex = state.items[target.position].item;
		reading = readFinalRun(ctx, target.runId, itemIndex).finally(() => memory.readingBack.delete(target.runId));
		memory.readingBack.set(target.runId, reading);
	}
	return await finishAfterAnswering(reading, () =>
		answer(503, { error: 'retry', message: 'Checking this run with the service: please deliver it again.' }),
	);
}
type Handled =
	| { respond: IWebhookResponseData }
	| { stop: Error }
	| { build: { report: BatchReport; state: PauseState; memory: BatchMemory } };

/**
 * A call that failed the signature check: taken when the run it names (one this batch knows) reads back from the
 * service as final; else refused (401), changing nothing. Returns the run read back, or what to answer.
 */
async function wakeUp(
	ctx: IWebhookFunctions,
	verdict: Extract<VerifyResult, { ok: false }>,
	state: PauseState | undefined,
	memory: BatchMemory | undefined,
	body: unknown,
	answer: Answer,
): Promise<{ run: RunRecord; position: number } | Exclude<Handled, { build: unknown }>> {
	const target = state && memory ? wakeTarget(state, memory, body, ctx.getRequestObject().query) : undefined;
	// Already known to be final while other runs go on: nothing to learn or do, so no read and no walk.
	if (target && memory!.isFinal(target.position) && memory!.inFlight() > 0) {
		return { respond: answer(200, { received: true }) };
	}
	const run = target ? await readBackInTime(ctx, state!, memory!, target, answer) : undefined;
	if (target && run) {
		memory!.failedChecks++;
		memory!.lastFailure = verdict.reason;
		// Calls sharing one read (the service's repeat of a call answered late) count it once.
		if (!memory!.isFinal(target.position)) memory!.readBackTaken++;
		ctx.logger.warn(
			`Media Generation "${ctx.getNode().name}": a delivery to waiting execution ${ctx.getExecutionId()} failed ` +
				`the signature check (${verdict.reason}); its run ${run.id} read back as ${run.status}, so it was taken`,
		);
		return { run, position: target.position };
	}
	const stop = refuseDelivery(ctx, verdict, state, memory, state && (await callsAnonymously(ctx)));
	return stop ? { stop } : { respond: answer(verdict.status, { error: 'unauthorized', message: verdict.reason }) };
}

async function handleDelivery(ctx: IWebhookFunctions, answer: Answer): Promise<Handled> {
	const req = ctx.getRequestObject();
	const credentials = await ctx.getCredentials('mediaGenWebhookApi');
	const raw = (req.rawBody as Buffer | undefined) ?? Buffer.from('');
	const verdict = verifyDelivery(req.headers as Record<string, unknown>, raw, credentials);
	const state = readPauseState(ctx);
	const memory = state ? batchMemoryOf(batchKeyOf(state, ctx.getExecutionId(), ctx.getNode().name)) : undefined;
	let run: unknown;
	try {
		run = JSON.parse(raw.toString('utf8'));
	} catch {
		run = undefined;
	}
	let readBack: { run: RunRecord; position: number } | undefined;
	if (!verdict.ok) {
		const woken = await wakeUp(ctx, verdict, state, memory, run, answer);
		if (!('run' in woken)) return woken;
		readBack = woken;
		run = woken.run;
	}
	if (!state || !memory || runRecordProblem(run)) {
		return { respond: answer(200, { received: true, ignored: 'not a run of this batch' }) };
	}
	memory.verified++;
	const delivered = run as RunRecord;
	const position = readBack?.position ?? namedPosition(ctx, state, delivered);
	// A credential that cannot be read stops the call here, before the delivery is taken.
	await identityOf(ctx);
	const batch = new BatchWalk(ctx, state, memory);
	const taken = takeDelivery(memory, position, delivered);
	// Answered now, before any request to the service (whose reads may each take a minute, while it waits 10 s
	// for the answer): what the delivery says is in this process's memory, and the call goes on after the answer.
	// n8n lets a waiting webhook answer first and keep working (test/helpers/waitingHost.ts names where).
	answer(200, { received: true });
	let report = await batch.walk();
	// A process that learnt this item's run only now (by its request key) can take the delivery now.
	if (!taken && takeDelivery(memory, position, delivered)) report = { ...batch.report(), later: report.later };
	if (!report.complete && Date.now() <= state.deadline) {
		// Runs still in flight: their deliveries carry the batch on (and retry what the service refused now).
		if (report.inFlight > 0 || claimActive(memory)) return { respond: { noWebhookResponse: true } };
		report = await waitForSlot(batch, state);
		if (!report.complete && Date.now() <= state.deadline) return { respond: { noWebhookResponse: true } };
	}
	// Another call is building the output: only one may (n8n 1.x would resume twice).
	if (claimActive(memory)) return { respond: { noWebhookResponse: true } };
	memory.resumingSince = Date.now();
	if (!report.complete) {
		batch.renewBudget();
		await batch.readUnfinished(true);
		report = batch.report();
	}
	return { build: { report, state, memory } };
}

/**
 * Puts the once-per-execution warning on the first item; an item bound for n8n's error output must keep its two
 * fields (resumeOutput.ts), so there the warning joins its message, on the first item that stays if there is one.
 */
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
	const { report, state, memory } = handled.build;
	// Answer the delivery now: downloads may take longer than the service waits for an answer.
	answer(200, { received: true, resumed: true });
	// Told once per execution: on the first item, or in the error that ends the step.
	const warning = memory.readBackTaken > 0 ? unsignedWarning(this, memory, await callsAnonymously(this)) : undefined;
	try {
		const items = await outputItems(this, state, report.outcomes).catch((error: Error) => {
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
