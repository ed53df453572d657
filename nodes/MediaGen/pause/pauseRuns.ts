// Pause mode, before the pause: checks the service can call back, uploads the files, submits the first run per slot
// with the resume URL as its webhook URL, records the batch and n8n's timer outcome, and lets the execution wait.
import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { describeWebhookCredentialProblem } from '../../shared/signingSecret';
import { identityOf, isBusySubmission } from '../../shared/transport';
import { creditsOf, refuse } from '../run/ledger';
import { pollLimits, sendItem } from '../run/send';
import { isPrivateHost } from '../run/checkRequest';
import { concurrencyOf } from '../run/concurrency';
import { withFileAddresses, type RunRequest } from '../run/runRequest';
import { requestKeyAdvice } from '../run/requestKey';
import { addRunDetails, NOTHING_SENT, refusalOf, sendFailure } from '../run/runErrors';
import { capRefusalHint } from '../run/runOutput';
import type { SpendingCap } from '../run/spendingCap';
import { batchDeadline, itemDeadline, timeLimitMs } from '../run/timeLimit';
import { batchMemoryOf, withBatchPaidRuns } from './batchWalk';
import { capRefusalsBeforePause, expectedSpend, pauseCapRefusal } from './pauseCap';
import { batchKeysOf, PAUSE_STATE_KEY, requestBodyOf, type PauseState } from './pauseState';
import { ANONYMOUS_CHOICES, ANONYMOUS_SECRET } from './signatureFailure';

/** How long after the time limit n8n's own timer ends a wait that no delivery ended (n8n checks each minute). */
const TIMER_GRACE_MS = 60_000;

const WEBHOOK_CREDENTIAL = 'mediaGenWebhookApi';

export const NO_SIGNING_SECRET_CHOSEN =
	'Waiting → Pause needs the webhook signing secret, and no Webhook Signing Secret credential is selected on ' +
	'this node';

/** Why the service could not call this resume URL: not https on a public host, unless it is the service's own. */
export function resumeUrlProblem(resumeUrl: string, baseUrl: string): string | undefined {
	let resume: URL;
	let base: URL;
	try {
		resume = new URL(resumeUrl);
		base = new URL(baseUrl);
	} catch {
		return `this execution has no usable resume URL ("${resumeUrl.split('?')[0]}")`;
	}
	const shown = `${resume.origin}${resume.pathname}`;
	if (isPrivateHost(base.hostname) && base.hostname === resume.hostname) return undefined;
	if (resume.protocol !== 'https:') return `this execution's resume URL (${shown}) is not https`;
	if (isPrivateHost(resume.hostname)) return `this execution's resume URL (${shown}) is on a private or local host`;
	return undefined;
}

/** Refuses pause mode, before anything is sent, when the service could not call back or its calls not be checked. */
async function checkCallBack(ctx: IExecuteFunctions, resumeUrl: string): Promise<void> {
	const refusal = (message: string, advice: string) =>
		addRunDetails(new NodeOperationError(ctx.getNode(), message, { description: `${advice} ${NOTHING_SENT}.` }), {
			nothingCharged: true,
		});
	const identity = await identityOf(ctx);
	const urlProblem = resumeUrlProblem(resumeUrl, identity.baseUrl);
	if (urlProblem) {
		throw refusal(
			`Waiting → Pause cannot be used here: ${urlProblem}`,
			"The service calls n8n back at the execution's resume URL, which n8n builds from its webhook address. " +
				"Set N8N_WEBHOOK_URL (n8n 1.x: WEBHOOK_URL, the older name, which 2.x still reads) to n8n's public " +
				'https address (for example https://n8n.example.com/) and restart n8n, or choose Waiting → Poll, ' +
				'which needs no address.',
		);
	}
	const chosen = ctx.getNode().credentials?.[WEBHOOK_CREDENTIAL];
	let secretProblem = chosen ? undefined : 'none selected';
	try {
		if (chosen) secretProblem = describeWebhookCredentialProblem(await ctx.getCredentials(WEBHOOK_CREDENTIAL));
	} catch (error) {
		secretProblem = `the credential selected for it ("${chosen!.name}") could not be read: ${(error as Error).message}`;
	}
	if (!secretProblem) return;
	// The problem's own advice (copy it from account settings) is no help to an anonymous ID, which has none.
	if (identity.kind === 'anonymous') {
		throw refusal(
			'Waiting → Pause needs the webhook signing secret, which an anonymous ID has no way to get',
			`${ANONYMOUS_SECRET}: ${ANONYMOUS_CHOICES}.`,
		);
	}
	// n8n's editor fills in a credential box by itself only while a node has none at all, so this one stays empty.
	if (!chosen) {
		throw refusal(
			NO_SIGNING_SECRET_CHOSEN,
			'Pick yours in the second credential box at the top of this node (n8n fills in only the first box by ' +
				"itself), or create one there holding your account's signing secret (account settings → Webhooks).",
		);
	}
	throw refusal(
		`Waiting → Pause needs the webhook signing secret: ${secretProblem}`,
		"Select a Media Generation Webhook Signing Secret credential on this node holding your account's signing " +
			'secret (account settings → Webhooks): the service signs the calls back to this execution with it, and the ' +
			'node checks with it that each call really comes from the service.',
	);
}

export const TIMER_ERROR =
	'The time limit passed and no delivery from the service ended the wait, so n8n ended it: this step could not ' +
	'check the runs at that moment';

function timerNote(state: PauseState): string {
	const minutes = Math.round(((state.deadline - state.pausedAt) / 60_000) * 10) / 10;
	const retype = requestKeyAdvice(batchKeysOf(state));
	return (
		`No call from the service ended the wait within ${minutes} minute${minutes === 1 ? '' : 's'} plus one minute, ` +
		'so n8n ended it, and this step could not check the runs at that moment. Most likely the service could not ' +
		"reach this n8n (n8n's address for calls from outside must be public https: ask whoever runs your n8n), or " +
		'the runs were still going, or their calls could not be checked (the Webhook Signing Secret did not match ' +
		'and the service could not be asked about the runs). Runs that were sent keep going and are charged. To ' +
		`get them without paying again, run this step again with ${retype}. ` +
		'To wait without depending on calls from the service, choose Waiting → Poll.'
	);
}

/** One item per input item: the outcome, as known at the pause, if n8n's timer ends the wait (pauseRuns below). */
export function timerOutcomeItems(state: PauseState, inputCount: number): INodeExecutionData[] {
	const note = timerNote(state);
	const byItem = new Map<number, IDataObject>();
	for (const bad of state.invalid)
		byItem.set(bad.item, { error: bad.message, description: bad.description ?? '', nothingCharged: true });
	for (const entry of state.items) {
		byItem.set(entry.item, {
			...entry.extraJson,
			error: entry.refused?.message ?? TIMER_ERROR,
			...(entry.refused && !entry.refused.mayBeCharged ? { nothingCharged: true } : {}),
			description: entry.refused ? (entry.refused.description ?? '') : note,
			requestKey: entry.body.requestKey,
			timedOut: !entry.refused || !!entry.refused.timedOut,
			...(entry.runId ? { runId: entry.runId } : {}),
		});
	}
	return Array.from({ length: inputCount }, (_, item) => ({
		json: byItem.get(item) ?? { error: TIMER_ERROR, description: note, timedOut: true },
		pairedItem: { item },
	}));
}

export async function pauseRuns(
	ctx: IExecuteFunctions,
	ready: RunRequest[],
	invalid: Array<{ itemIndex: number; error: Error }>,
	cap: SpendingCap | undefined,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	await checkCallBack(ctx, resumeUrl);
	const plan = cap && capRefusalsBeforePause(ctx.getNode(), ready, cap, continueOnFail);
	const items: PauseState['items'] = [];
	for (const [position, p] of ready.entries()) {
		const body = await withFileAddresses(ctx, p);
		const refusedOverCap = plan?.refusals.get(position);
		const price = plan?.prices[position];
		items.push({
			item: p.itemIndex,
			body,
			download: p.settings.download,
			binaryProperty: p.settings.binaryProperty,
			...(p.extraJson ? { extraJson: p.extraJson } : {}),
			...(refusedOverCap ? { refused: { message: refusedOverCap } } : {}),
			...(price !== undefined ? { price } : {}),
		});
	}
	const lanes = Math.max(1, await concurrencyOf(ctx, items.length));
	const state: PauseState = {
		version: 1,
		batchId: randomUUID(),
		lanes,
		deadline: batchDeadline(
			ready.map((p) => ({ kind: String(p.body.kind), timeoutMs: p.settings.timeoutMs })),
			lanes,
		),
		resumeUrl,
		pausedAt: Date.now(),
		continueOnFail,
		...(cap && plan ? { cap: { limit: cap.cap, spentBefore: plan.spentBefore } } : {}),
		items,
		invalid: invalid.map(({ itemIndex, error }) => ({ item: itemIndex, ...refusalOf(error) })),
	};
	// The first runs go out now, in input order, one per free slot; a refused one hands its slot to the next item.
	const capped = new Set(items.flatMap((entry, position) => (plan?.refusals.has(position) ? [entry.item] : [])));
	const memory = batchMemoryOf(state, ctx.getExecutionId(), ctx.getNode().name, true);
	const costOf = (position: number) => creditsOf(memory.items[position], items[position].price);
	for (const [position, entry] of items.entries()) {
		if (memory.inFlight() === lanes) break;
		if (entry.refused) {
			refuse(memory.items[position], entry.refused);
			continue;
		}
		// Checked again on what the plan really charged for the runs sent so far (pauseCap.ts).
		const overCap = pauseCapRefusal(state, position, costOf);
		if (overCap) {
			entry.refused = overCap;
			refuse(memory.items[position], overCap);
			capped.add(entry.item);
			continue;
		}
		const { settings } = ready[position];
		const item = memory.items[position];
		// Only the first waits for a slot: when other batches hold them all, deliveries send this item and the next.
		const first = memory.inFlight() === 0;
		const deadline = itemDeadline(String(entry.body.kind), settings.timeoutMs);
		await sendItem(ctx, item, requestBodyOf(state, position), {
			...pollLimits(settings, deadline),
			waitForSlot: first,
		});
		entry.body.requestKey = item.key;
		if (item.attempt) Object.assign(entry, { firstKey: item.firstKey, attempt: item.attempt });
		if (item.run) {
			Object.assign(entry, { runId: item.run.id, createdAt: item.run.createdAt, cost: Number(item.run.cost) || 0 });
			if (item.earlier) entry.earlier = true;
			memory.watched.add(position);
			item.stale = true;
			continue;
		}
		// Left to the resume calls: a busy answer, or a lost answer after which the run may exist (and be charged).
		if (!first && (item.state === 'unsent' || item.state === 'answerLost') && isBusySubmission(item.failure)) {
			if (item.state === 'answerLost') entry.lost = true;
			break;
		}
		const error = sendFailure(ctx, item, batchKeysOf(state), timeLimitMs(String(entry.body.kind), settings.timeoutMs));
		// Runs already started keep going and are charged: named in the error.
		if (!continueOnFail)
			throw withBatchPaidRuns(
				error,
				state,
				memory.items.filter((other) => other !== item),
			);
		entry.refused = { ...refusalOf(error), ...(item.state === 'answerLost' ? { timedOut: true as const } : {}) };
		refuse(item, error);
	}
	if (cap) cap.plan(expectedSpend(state, costOf) - cap.spent);
	// Shown above the step's output while it waits. The resume call cannot add hints (n8n's webhook context has no
	// addExecutionHints, and the run it resumes starts with none), so after the pause the refused items say it.
	if (capped.size) ctx.addExecutionHints(capRefusalHint([...capped].sort((a, b) => a - b)));
	// One JSON string: n8n 2.x copies an object out of another node's context one key at a time, in its expression
	// isolate (about 17,000 host calls at 1,000 items, on every delivery).
	ctx.getContext('node')[PAUSE_STATE_KEY] = JSON.stringify(state);
	const input = ctx.getInputData();
	// When no delivery comes, n8n's own timer ends the wait and passes on what the node's input holds without running
	// the node (WorkflowExecute.handleWaitingState): so the input holds an outcome that says so, not the input items.
	ctx.getExecuteData().data = { main: [timerOutcomeItems(state, input.length)] };
	await ctx.putExecutionToWait(new Date(state.deadline + TIMER_GRACE_MS));
	return input;
}
