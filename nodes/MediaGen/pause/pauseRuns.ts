// Pause mode, before the pause: checks that the service can call this execution back, uploads every
// item's files (free), submits the first run for each slot with the execution's resume URL as its
// webhook URL, records the batch in the node's context data and lets go of the execution. The rest
// happens in the resume webhook (resumeWebhook.ts), one delivery at a time.
import { randomUUID } from 'crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { describeWebhookCredentialProblem } from '../../shared/signingSecret';
import { MediaGenApiError, type Identity } from '../../shared/transport';
import { batchMemoryOf } from './batchMemory';
import { timerOutcomeItems } from './timerOutcome';
import { resumeUrlProblem } from '../run/checkRequest';
import { concurrencyOf } from '../run/concurrency';
import { withPaidRuns } from '../run/paidRuns';
import { itemWebhookUrl, PAUSE_STATE_KEY, type PausedItem, type PauseState } from './pauseState';
import { priceRequestOf, withFileAddresses, type PreparedRun } from '../run/preparedRun';
import { capRefusalMessage, type SpendingCap } from '../run/spendingCap';
import { submitRun } from '../run/submission';
import { timeLimitMs } from '../run/timeLimit';

/** How long after the time limit n8n's own timer ends a wait that no delivery ended (n8n checks each minute). */
const TIMER_GRACE_MS = 60_000;

function pauseRefusal(ctx: IExecuteFunctions, reason: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Waiting → Pause cannot be used here: ${reason}`, {
		description:
			"The service calls n8n back at the execution's resume URL, which n8n builds from its WEBHOOK_URL setting. " +
			"Set WEBHOOK_URL to n8n's public https address (for example https://n8n.example.com/) and restart n8n, " +
			'or choose Waiting → Poll, which needs no address. Nothing was submitted and nothing was charged.',
	});
}

/**
 * In pause mode the cap is applied before pausing, in item order, at the predicted prices: an item whose price
 * would take the total over the cap is refused (it is never submitted). The others are counted in the saved total
 * now, since the resume calls that send them cannot save anything. A price that cannot be predicted cannot be
 * planned: such an item is refused before anything is sent (Waiting → Poll sends it alone and waits for its price).
 */
function capRefusals(
	ctx: IExecuteFunctions,
	ready: PreparedRun[],
	cap: SpendingCap | undefined,
	continueOnFail: boolean,
): (position: number) => string | undefined {
	if (!cap) return () => undefined;
	const refusals = new Map<number, string>();
	const prices = ready.map((p) => cap.book.price(priceRequestOf(p)));
	const unknown = prices.findIndex((price) => price.credits === null);
	if (unknown >= 0 && !continueOnFail) throw unknownPriceInPause(ctx, ready[unknown].itemIndex, prices[unknown].why);
	let total = cap.spent;
	for (const [position, price] of prices.entries()) {
		if (price.credits === null) {
			refusals.set(position, `${UNKNOWN_IN_PAUSE}: ${price.why ?? 'no earlier run like it'}`);
		} else if (total + price.credits > cap.cap) {
			refusals.set(position, capRefusalMessage({ cap: cap.cap, spent: total, price }, 'planned'));
		} else {
			total += price.credits;
			cap.plan(price.credits);
		}
	}
	return (position) => refusals.get(position);
}

const UNKNOWN_IN_PAUSE =
	"Max Credits per Execution with Waiting → Pause: this run's price is not known in advance, so it cannot be " +
	'counted before the pause';

function unknownPriceInPause(ctx: IExecuteFunctions, itemIndex: number, why: string | undefined) {
	return new NodeOperationError(ctx.getNode(), `${UNKNOWN_IN_PAUSE} (item ${itemIndex + 1}: ${why ?? 'unknown'})`, {
		description:
			'Nothing was submitted and nothing was charged. Choose Waiting → Poll, which sends such a run alone and ' +
			'waits for its price, or remove the cap, or run this model with these options once so that its price is ' +
			"in your account's history.",
	});
}

function refusal(error: unknown): PausedItem['refused'] {
	const e = error as { message?: string; description?: string | null };
	return { message: String(e?.message ?? error), ...(e?.description ? { description: e.description } : {}) };
}

export async function pauseRuns(
	ctx: IExecuteFunctions,
	identity: Identity,
	ready: PreparedRun[],
	invalid: Array<{ itemIndex: number; error: Error }>,
	cap: SpendingCap | undefined,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const urlProblem = resumeUrlProblem(resumeUrl, identity.baseUrl);
	if (urlProblem) throw pauseRefusal(ctx, urlProblem);
	const secretProblem = describeWebhookCredentialProblem(
		await ctx.getCredentials('mediaGenWebhookApi').catch(() => ({})),
	);
	if (secretProblem) {
		throw new NodeOperationError(ctx.getNode(), `Waiting → Pause needs the webhook signing secret: ${secretProblem}`, {
			description:
				"Select a Media Generation Webhook Signing Secret credential on this node holding your account's signing " +
				'secret (account settings → Webhooks): the service signs the calls back to this execution with it, and the ' +
				'node checks with it that each call really comes from the service. Nothing was charged.',
		});
	}
	const overCap = capRefusals(ctx, ready, cap, continueOnFail);
	const items: PausedItem[] = [];
	for (const [position, p] of ready.entries()) {
		const body = await withFileAddresses(ctx, identity, p);
		body.webhookUrl = itemWebhookUrl(resumeUrl, position);
		const refusedOverCap = overCap(position);
		items.push({
			item: p.itemIndex,
			body,
			download: p.settings.download,
			binaryProperty: p.settings.binaryProperty,
			...(p.extraJson ? { extraJson: p.extraJson } : {}),
			...(refusedOverCap ? { refused: { message: refusedOverCap } } : {}),
		});
	}
	const lanes = Math.max(1, await concurrencyOf(ctx, identity, items.length));
	const state: PauseState = {
		version: 1,
		batchId: randomUUID(),
		lanes,
		deadline: Date.now() + Math.max(...ready.map((p) => timeLimitMs(String(p.body.kind), p.settings.timeoutMs))),
		pausedAt: Date.now(),
		continueOnFail,
		items,
		invalid: invalid.map(({ itemIndex, error }) => ({ item: itemIndex, ...refusal(error)! })),
	};
	// The first runs go out now, in input order, one per free slot; a refused one hands its slot to the next
	// item. Only the first waits for a slot (the execution must have a run whose delivery will wake it): when
	// other batches hold the rest, the deliveries send the next items as slots come free.
	const claimed = new Set<string>();
	const memory = batchMemoryOf(state.batchId!);
	memory.complete = true;
	for (const [position, entry] of items.entries()) {
		if (memory.inFlight() === lanes) break;
		if (entry.refused) continue;
		const settings = ready[position].settings;
		const waitForSlot = memory.inFlight() === 0;
		try {
			const s = { ctx, identity, settings, itemIndex: entry.item, claimed, waitForSlot };
			const run = await submitRun(s, entry.body);
			entry.runId = run.id;
			entry.createdAt = run.createdAt;
			memory.learn(position, run, true);
		} catch (error) {
			if (!waitForSlot && error instanceof MediaGenApiError && error.code === 'busy') break;
			if (!continueOnFail) throw withStartedRuns(error, items);
			entry.refused = refusal(error);
		}
	}
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
	const started = items.flatMap((i) => (i.runId ? [{ id: i.runId, itemIndex: i.item }] : []));
	return withPaidRuns(error, started);
}
