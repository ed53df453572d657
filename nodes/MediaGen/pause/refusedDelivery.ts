// Pause mode: a call to the resume URL that fails the signature check and whose run could not be read back
// as finished (readBack.ts). It changes nothing in the batch, but it is never silent: n8n's log names each
// one, and once the time limit has passed with no genuine delivery seen, the next refused one ends the
// execution with an error that says why it never resumed.
import type { IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { VerifyResult } from '../../shared/signature';
import type { PauseState } from './pauseState';
import { withPaidRuns, type PaidRun } from '../run/paidRuns';
import { savedBatchKeys } from '../run/requestKey';
import type { BatchMemory } from './batchMemory';
import { ANONYMOUS_CHOICES, ANONYMOUS_SECRET } from './readBack';

type Refused = Extract<VerifyResult, { ok: false }>;

export const SIGNATURE_FAILURE =
	'Deliveries to this execution failed the signature check: the Webhook Signing Secret credential holds ' +
	'another secret than the one signing your runs';

function isSecretMismatch(verdict: Refused): boolean {
	return verdict.field === 'Signing Secret' || verdict.reason === 'Signature does not match';
}

/** What to do about the secret: an account's holder puts in its signing secret; an anonymous ID has none. */
function secretAdvice(anonymous: boolean): string {
	if (anonymous) return `${ANONYMOUS_SECRET}: for this step, ${ANONYMOUS_CHOICES}.`;
	return (
		"Put your account's signing secret (account settings → Webhooks), which signs deliveries to a run's own " +
		'Webhook URL, into the Webhook Signing Secret credential (keep the old one as the previous secret while you ' +
		'switch).'
	);
}

function signatureError(ctx: IWebhookFunctions, state: PauseState, memory: BatchMemory, anonymous: boolean): Error {
	const count = memory.failedChecks;
	// Every item that was or may have been charged: runs known before the pause or learnt since, items sent whose
	// answer never came, and, in a process that did not see every submission (restarted, or another webhook
	// process), items it cannot tell were sent or not: past the limit it may not send their keys to find out.
	const charged = state.items.flatMap((i, position): PaidRun[] => {
		const requestKey = String(i.body.requestKey);
		const known = memory.runs.get(position)?.run;
		if (known?.status === 'FAILED') return []; // refunded
		const id = i.runId ?? known?.id;
		if (id) return [{ id, itemIndex: i.item, requestKey }];
		const refused = i.refused ?? memory.refused.get(position);
		if (refused) return refused.mayBeCharged ? [{ itemIndex: i.item, requestKey }] : [];
		if (memory.unanswered.has(position) || memory.sending.has(position)) return [{ itemIndex: i.item, requestKey }];
		return memory.complete ? [] : [{ itemIndex: i.item, requestKey, unconfirmed: true }];
	});
	const error = new NodeOperationError(ctx.getNode(), SIGNATURE_FAILURE, {
		description:
			`${count} deliver${count === 1 ? 'y was' : 'ies were'} refused since the pause (the last: ` +
			`${memory.lastFailure ?? 'signature does not match'}), their runs could not be read back from the service ` +
			`as finished with your ${anonymous ? 'anonymous ID' : 'API credential'}, and the time limit has passed, so ` +
			`this execution stops here instead of waiting on. ${secretAdvice(anonymous)} The runs keep going and are ` +
			`charged: find them with Generation → Get Many${charged.length ? ', or as the note below says' : ''}.`,
	});
	return withPaidRuns(error, charged, [], savedBatchKeys(state.items, state.invalid.length));
}

/**
 * Logs and counts a refused call; returns the error that ends the execution when the time limit has passed
 * and only refused deliveries came (so it would otherwise wait on n8n's timer), else undefined.
 */
export function refuseDelivery(
	ctx: IWebhookFunctions,
	verdict: Refused,
	state: PauseState | undefined,
	memory: BatchMemory | undefined,
	anonymous = false,
): Error | undefined {
	ctx.logger.warn(
		`Media Generation "${ctx.getNode().name}": refused a delivery to waiting execution ` +
			`${ctx.getExecutionId()}: ${verdict.reason}`,
	);
	if (!state || !memory) return undefined;
	memory.failedChecks++;
	memory.lastFailure = verdict.reason;
	const expired = Date.now() > state.deadline;
	if (!expired || !isSecretMismatch(verdict) || memory.verified > 0) return undefined;
	return signatureError(ctx, state, memory, anonymous);
}
