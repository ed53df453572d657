// Pause mode, before the pause: checks that the service can call this execution back, uploads every
// item's files (free), submits the first run for each slot with the execution's resume URL as its
// webhook URL, records the batch in the node's context data and lets go of the execution. The rest
// happens in the resume webhook (resumeWebhook.ts), one delivery at a time.
import { randomUUID } from 'crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { describeWebhookCredentialProblem } from '../../shared/signingSecret';
import { identityOf } from '../../shared/transport';
import { batchMemoryOf } from './batchMemory';
import { ANONYMOUS_CHOICES, ANONYMOUS_SECRET } from './readBack';
import { timerOutcomeItems } from './timerOutcome';
import { resumeUrlProblem } from '../run/checkRequest';
import { concurrencyOf } from '../run/concurrency';
import { withPaidRuns } from '../run/paidRuns';
import { itemWebhookUrl, PAUSE_STATE_KEY, type PausedItem, type PauseState } from './pauseState';
import { withFileAddresses, type RunRequest } from '../run/runRequest';
import { refusalOf } from '../run/runErrors';
import { capRefusalHint } from '../run/runOutput';
import { capRefusalsBeforePause, type SpendingCap } from '../run/spendingCap';
import { expectedSpend, pauseCapRefusal } from './pauseCap';
import { submitIfSlotFree, submitRun } from '../run/submission';
import { itemDeadline } from '../run/timeLimit';

/** How long after the time limit n8n's own timer ends a wait that no delivery ended (n8n checks each minute). */
const TIMER_GRACE_MS = 60_000;

function pauseRefusal(ctx: IExecuteFunctions, reason: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Waiting → Pause cannot be used here: ${reason}`, {
		description:
			"The service calls n8n back at the execution's resume URL, which n8n builds from its webhook address. " +
			"Set N8N_WEBHOOK_URL (n8n 1.x: WEBHOOK_URL, the older name, which 2.x still reads) to n8n's public " +
			'https address (for example https://n8n.example.com/) and restart n8n, or choose Waiting → Poll, ' +
			'which needs no address. Nothing was submitted and nothing was charged.',
	});
}

const WEBHOOK_CREDENTIAL = 'mediaGenWebhookApi';

export const NO_SIGNING_SECRET_CHOSEN =
	'Waiting → Pause needs the webhook signing secret, and no Webhook Signing Secret credential is selected on ' +
	'this node';

/**
 * None selected: n8n's editor fills in a credential box by itself only while a node has no credential at all (it
 * picks one, the most recently updated), so the box Waiting → Pause shows stays empty until the user picks one.
 */
function noSigningSecretChosen(ctx: IExecuteFunctions): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), NO_SIGNING_SECRET_CHOSEN, {
		description:
			'Pick yours in the second credential box at the top of this node (n8n fills in only the first box by ' +
			"itself), or create one there holding your account's signing secret (account settings → Webhooks). " +
			'Nothing was submitted and nothing was charged.',
	});
}

/** What keeps the step from checking the calls back, if anything: a credential it cannot read, or a bad secret. */
async function signingSecretProblem(ctx: IExecuteFunctions, chosen: string): Promise<string | undefined> {
	try {
		return describeWebhookCredentialProblem(await ctx.getCredentials(WEBHOOK_CREDENTIAL));
	} catch (error) {
		return `the credential selected for it ("${chosen}") could not be read: ${(error as Error).message}`;
	}
}

export async function pauseRuns(
	ctx: IExecuteFunctions,
	ready: RunRequest[],
	invalid: Array<{ itemIndex: number; error: Error }>,
	cap: SpendingCap | undefined,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	const identity = await identityOf(ctx);
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const urlProblem = resumeUrlProblem(resumeUrl, identity.baseUrl);
	if (urlProblem) throw pauseRefusal(ctx, urlProblem);
	const chosen = ctx.getNode().credentials?.[WEBHOOK_CREDENTIAL];
	const secretProblem = chosen ? await signingSecretProblem(ctx, chosen.name) : 'none selected';
	if (secretProblem) {
		// The problem's own advice (copy it from account settings) is no help to an anonymous ID, which has none.
		if (identity.kind === 'anonymous') {
			throw new NodeOperationError(
				ctx.getNode(),
				'Waiting → Pause needs the webhook signing secret, which an anonymous ID has no way to get',
				{ description: `${ANONYMOUS_SECRET}: ${ANONYMOUS_CHOICES}. Nothing was charged.` },
			);
		}
		if (!chosen) throw noSigningSecretChosen(ctx);
		throw new NodeOperationError(ctx.getNode(), `Waiting → Pause needs the webhook signing secret: ${secretProblem}`, {
			description:
				"Select a Media Generation Webhook Signing Secret credential on this node holding your account's signing " +
				'secret (account settings → Webhooks): the service signs the calls back to this execution with it, and the ' +
				'node checks with it that each call really comes from the service. Nothing was charged.',
		});
	}
	const plan = capRefusalsBeforePause(ctx.getNode(), ready, cap, continueOnFail);
	const items: PausedItem[] = [];
	for (const [position, p] of ready.entries()) {
		const body = await withFileAddresses(ctx, p);
		body.webhookUrl = itemWebhookUrl(resumeUrl, position);
		const refusedOverCap = plan.refusal(position);
		const price = plan.prices[position];
		items.push({
			item: p.itemIndex,
			body,
			download: p.settings.download,
			binaryProperty: p.settings.binaryProperty,
			...(p.extraJson ? { extraJson: p.extraJson } : {}),
			...(refusedOverCap ? { refused: { message: refusedOverCap } } : {}),
			...(cap && price !== undefined ? { price } : {}),
		});
	}
	const lanes = Math.max(1, await concurrencyOf(ctx, items.length));
	const state: PauseState = {
		version: 1,
		batchId: randomUUID(),
		lanes,
		// The batch's deadline is its last item's: every item starts now, before the pause.
		deadline: Math.max(...ready.map((p) => itemDeadline(String(p.body.kind), p.settings.timeoutMs))),
		pausedAt: Date.now(),
		continueOnFail,
		...(cap ? { cap: { limit: cap.cap, spentBefore: plan.spentBefore } } : {}),
		items,
		invalid: invalid.map(({ itemIndex, error }) => ({ item: itemIndex, ...refusalOf(error) })),
	};
	// The first runs go out now, in input order, one per free slot; a refused one hands its slot to the next
	// item. Only the first waits for a slot (the execution must have a run whose delivery will wake it): when
	// other batches hold the rest, the deliveries send the next items as slots come free.
	const claimed = new Set<string>();
	const capped = new Set(items.flatMap((entry, position) => (plan.refusal(position) ? [entry.item] : [])));
	const memory = batchMemoryOf(state.batchId!);
	memory.complete = true;
	const costOf = (position: number) => (items[position].runId ? items[position].cost : undefined);
	for (const [position, entry] of items.entries()) {
		if (memory.inFlight() === lanes) break;
		if (entry.refused) continue;
		// Checked again on what the plan really charged for the runs sent so far (pauseCap.ts).
		const overCap = pauseCapRefusal(state, position, costOf);
		if (overCap) {
			entry.refused = overCap;
			capped.add(entry.item);
			continue;
		}
		const settings = ready[position].settings;
		const s = { ctx, settings, itemIndex: entry.item, claimed, batch: ready[position].batchKeys };
		try {
			const run = memory.inFlight() === 0 ? await submitRun(s, entry.body) : await submitIfSlotFree(s, entry.body);
			// Every slot is taken by other batches: deliveries send this item and the next as slots come free. After
			// a lost answer it may have a run already: until its key brings that run back, it may have been charged.
			if ('busy' in run) {
				if (run.lost) memory.unanswered.add(position);
				break;
			}
			entry.runId = run.id;
			entry.createdAt = run.createdAt;
			entry.cost = Number(run.cost) || 0;
			memory.learn(position, run, true);
		} catch (error) {
			if (!continueOnFail) throw withStartedRuns(error, items);
			entry.refused = refusalOf(error);
		}
	}
	if (cap) cap.plan(expectedSpend(state, costOf) - cap.spent);
	// Shown above the step's output while it waits. The resume call cannot add hints (n8n's webhook context has no
	// addExecutionHints, and the run it resumes starts with none), so after the pause the refused items say it.
	if (capped.size) ctx.addExecutionHints(capRefusalHint([...capped].sort((a, b) => a - b)));
	ctx.getContext('node')[PAUSE_STATE_KEY] = state;
	const input = ctx.getInputData();
	// When no delivery comes (n8n unreachable, or every delivery fails the signature check), n8n's own timer
	// ends the wait a minute after the time limit. n8n does not run the node then: it passes on what the
	// node's input holds (WorkflowExecute.handleWaitingState). So the input held for that moment is an
	// outcome that says so, never the input items themselves posing as results.
	ctx.getExecuteData().data = { main: [timerOutcomeItems(state, input.length)] };
	await ctx.putExecutionToWait(new Date(state.deadline + TIMER_GRACE_MS));
	return input;
}

/** A refusal before pausing stops the batch; runs already started keep going, are charged and are named. */
function withStartedRuns<E>(error: E, items: PausedItem[]): E {
	const started = items.flatMap((i) =>
		i.runId ? [{ id: i.runId, itemIndex: i.item, requestKey: String(i.body.requestKey) }] : [],
	);
	return withPaidRuns(error, started);
}
