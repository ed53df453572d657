// Pause mode: a call failing the signature check (the spec does not say which secret signs a run's own Webhook URL)
// wakes its run by a read-back (a forged call costs one read); past the limit with none genuine, stops saying why.
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { finishAfterAnswering, readFinalRun } from '../../shared/runReadBack';
import type { RunRecord } from '../../shared/records';
import { isWrongSecret, type VerifyResult } from '../../shared/signature';
import { identityOf } from '../../shared/transport';
import type { LedgerItem } from '../run/ledger';
import { paidRunsOf, withPaidRuns } from '../run/runErrors';
import { BatchWalk, type BatchMemory } from './batchWalk';
import { batchKeysOf, positionFromQuery, type PauseState } from './pauseState';

/** Answers the delivery now (the call may go on working). */
type Answer = (status: number, body: IDataObject) => IWebhookResponseData;

/** How a call that goes no further ends: an answer, or the error that fails the execution. */
type CallEnd = { respond: IWebhookResponseData } | { stop: Error };

export const ANONYMOUS_SECRET =
	'An anonymous ID has no account settings, and the service does not say which secret signs the calls back to ' +
	'its runs';

/** What an anonymous ID can do instead of a secret it has no way to get: the two ways the spec offers. */
export const ANONYMOUS_CHOICES =
	'choose Waiting → Poll, which needs no secret, or use a Media Generation API credential (an API key), whose ' +
	"account's signing secret is in account settings → Webhooks";

export const SIGNATURE_FAILURE =
	'Deliveries to this execution failed the signature check: the Webhook Signing Secret credential holds ' +
	'another secret than the one signing your runs';

export async function callsAnonymously(ctx: IWebhookFunctions): Promise<boolean> {
	return (await identityOf(ctx).catch(() => undefined))?.kind === 'anonymous';
}

/** The run a call may wake: one this batch knows by the ID in the body, else the one at the URL's position. */
function wakeTarget(state: PauseState, memory: BatchMemory, body: unknown, query: unknown) {
	const position = memory.positionOf((body as { id?: unknown } | undefined)?.id) ?? positionFromQuery(query, state);
	const runId = position === undefined ? undefined : memory.items[position]?.run?.id;
	return runId ? { position: position!, runId } : undefined;
}

/**
 * A call that failed the check: its run if it reads back as final (calls naming one run share the read; a slow one
 * is answered 503 first, so the service delivers again and the repeat finds the run known), else what to answer
 * (401, nothing changed) or the error that ends the execution.
 */
export async function wakeUp(
	ctx: IWebhookFunctions,
	verdict: Extract<VerifyResult, { ok: false }>,
	state: PauseState | undefined,
	memory: BatchMemory | undefined,
	body: unknown,
	answer: Answer,
): Promise<{ run: RunRecord } | CallEnd> {
	const target = state && memory ? wakeTarget(state, memory, body, ctx.getRequestObject().query) : undefined;
	if (state && memory && target) {
		const { position, runId } = target;
		// Already known to be final while other runs go on: nothing to learn or do, so no read and no walk.
		if (memory.isFinal(position) && memory.inFlight() > 0) return { respond: answer(200, { received: true }) };
		const reading =
			memory.readingBack.get(runId) ??
			readFinalRun(ctx, runId, state.items[position].item).finally(() => memory.readingBack.delete(runId));
		memory.readingBack.set(runId, reading);
		const run = await finishAfterAnswering(reading, () =>
			answer(503, { error: 'retry', message: 'Checking this run with the service: please deliver it again.' }),
		);
		if (run) {
			memory.failedChecks++;
			memory.lastFailure = verdict.reason;
			// Calls sharing one read (the service's repeat of a call answered late) count it once.
			if (!memory.isFinal(position)) memory.readBackTaken++;
			ctx.logger.warn(
				`Media Generation "${ctx.getNode().name}": a delivery to waiting execution ${ctx.getExecutionId()} failed ` +
					`the signature check (${verdict.reason}); its run ${run.id} read back as ${run.status}, so it was taken`,
			);
			return { run };
		}
	}
	ctx.logger.warn(
		`Media Generation "${ctx.getNode().name}": refused a delivery to waiting execution ` +
			`${ctx.getExecutionId()}: ${verdict.reason}`,
	);
	if (state && memory) {
		memory.failedChecks++;
		memory.lastFailure = verdict.reason;
		// Past the limit with only refused deliveries, it would otherwise wait on n8n's timer.
		if (Date.now() > state.deadline && isWrongSecret(verdict.code) && memory.verified === 0) {
			// Another process may have sent items this one never sent: listed since the pause, they are named too.
			const { items } = await new BatchWalk(ctx, state, memory).confirmUnsent();
			return { stop: signatureError(ctx, state, memory, items, await callsAnonymously(ctx)) };
		}
	}
	return { respond: answer(verdict.status, { error: 'unauthorized', message: verdict.reason }) };
}

function signatureError(
	ctx: IWebhookFunctions,
	state: PauseState,
	memory: BatchMemory,
	items: LedgerItem[],
	anonymous: boolean,
): Error {
	const count = memory.failedChecks;
	const advice = anonymous
		? `${ANONYMOUS_SECRET}: for this step, ${ANONYMOUS_CHOICES}.`
		: "Put your account's signing secret (account settings → Webhooks), which signs deliveries to a run's own " +
			'Webhook URL, into the Webhook Signing Secret credential (keep the old one as the previous secret while you ' +
			'switch).';
	const paid = paidRunsOf(items);
	const error = new NodeOperationError(ctx.getNode(), SIGNATURE_FAILURE, {
		description:
			`${count} deliver${count === 1 ? 'y was' : 'ies were'} refused since the pause (the last: ` +
			`${memory.lastFailure ?? 'signature does not match'}), their runs could not be read back from the service ` +
			`as finished with your ${anonymous ? 'anonymous ID' : 'API credential'}, and the time limit has passed, so ` +
			`this execution stops here instead of waiting on. ${advice} The runs keep going and are ` +
			`charged: find them with Generation → Get Many${paid.length ? ', or as the note below says' : ''}.`,
	});
	return withPaidRuns(error, paid, [], batchKeysOf(state));
}

/** The warning the output carries once per execution when runs were taken on their read-back. */
export function unsignedWarning(ctx: IWebhookFunctions, memory: BatchMemory, anonymous: boolean): string {
	const count = memory.readBackTaken;
	const credential = ctx.getNode().credentials?.mediaGenWebhookApi?.name;
	const named = credential ? `the Webhook Signing Secret credential "${credential}"` : 'the Webhook Signing Secret';
	const what =
		`${count} deliver${count === 1 ? 'y' : 'ies'} to this step failed the signature check ` +
		`(${memory.lastFailure ?? 'signature does not match'}). Nothing was lost: the node read ` +
		`${count === 1 ? 'that run' : 'those runs'} back from the service with your ` +
		`${anonymous ? 'anonymous ID' : 'API credential'} and took ${count === 1 ? 'it' : 'them'} from there.`;
	if (anonymous) {
		return (
			`${what} ${ANONYMOUS_SECRET}, so this will happen again, at one extra read per delivery and nothing more. ` +
			`To avoid it, ${ANONYMOUS_CHOICES}.`
		);
	}
	return (
		`${what} To stop this warning, check the secret in ${named}: ` +
		"it is not the one that signs deliveries to a run's own Webhook URL. Ask the service which secret that " +
		'is (it may differ from the account signing secret in account settings → Webhooks). Leaving it as it is ' +
		'costs one extra read per delivery and nothing more.'
	);
}
