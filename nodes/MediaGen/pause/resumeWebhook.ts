// Pause mode, the resume webhook n8n serves at the resume URL while the execution waits: each call is a run's delivery.
// A genuine one (signed as the trigger checks it; others: signatureFailure.ts) sends the runs its freed slot is owed
// and, once every run is final, resumes the execution with the same items and errors as Poll. Calls are answered
// within seconds (the service waits 10 s) and work on after. It throws only to fail the execution on purpose.
import type { INodeExecutionData, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { runRecordProblem } from '../../shared/responseChecks';
import type { RunRecord } from '../../shared/records';
import { verifyDelivery } from '../../shared/signature';
import { identityOf } from '../../shared/transport';
import { isErrorOutputItem } from '../run/runOutput';
import { batchMemoryOf, type BatchMemory } from './batchMemory';
import { BatchWalk, reportOf, type BatchReport } from './batchWalk';
import { isPauseState, PAUSE_STATE_KEY, type PauseState } from './pauseState';
import { outputItems } from './resumeOutput';
import { callsAnonymously, unsignedWarning, wakeUp, type Answer } from './signatureFailure';

export const resumeWebhooks: IWebhookDescription[] = [
	{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: '', isFullPath: true, restartWebhook: true },
];

/** After a call has built the output, others wait this long before they may try (n8n may not have resumed). */
const RESUME_CLAIM_MS = 30_000;
const SLOT_WAIT_MAX_MS = 15_000;

/** Takes a delivered run for the item this process knows it by: by ID, since a replay may target any item's URL. */
function takeDelivery(memory: BatchMemory, run: RunRecord): boolean {
	for (const [position, known] of memory.runs) {
		if (known.run.id === run.id) {
			memory.learn(position, run, true);
			return true;
		}
	}
	return false;
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
	const state = isPauseState(saved) ? saved : undefined;
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
	if (!taken && takeDelivery(memory, delivered)) report = reportOf(state, memory);
	if (!report.complete && Date.now() <= state.deadline) {
		// Runs still in flight: their deliveries carry the batch on (and retry what the service refused now).
		if (report.inFlight > 0 || claimActive(memory)) return { respond: { noWebhookResponse: true } };
		report = await waitForSlot(batch, state, report);
		if (!report.complete && Date.now() <= state.deadline) return { respond: { noWebhookResponse: true } };
	}
	// Another call is building the output: only one may (n8n 1.x would resume twice).
	if (claimActive(memory)) return { respond: { noWebhookResponse: true } };
	memory.resumingSince = Date.now();
	if (!report.complete) {
		batch.renewBudget();
		await batch.readUnfinished(true);
		report = reportOf(state, memory);
	}
	return { build: { report, state, memory } };
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
