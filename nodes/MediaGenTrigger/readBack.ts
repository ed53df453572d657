// The trigger, a delivery that fails the signature check while a Media Generation API credential is attached: the
// run its body names is read back from the service with that credential (shared/runReadBack.ts), and the delivery
// is taken only when its body says exactly what the service's record says (claim.ts). What starts the workflow is
// the record read back, never the body that came. A call whose webhook-id, status or age already rules it out
// (claim.ts) gets no read, so a forged call costs at most one read.
//
// What a read-back proves, and what it cannot: it proves the run is the account's, is final, and that every field
// the workflow receives is the service's. It cannot prove the service sent this call to this URL: the record does
// not say where a run's deliveries go, so the body of a finished run of the account (sent to another Webhook URL or
// endpoint, or copied from a log) called in here within READ_BACK_MAX_AGE_MS of the run's start starts the workflow
// once. The de-duplication memory then covers it: webhook-ids are the service's own (msg_<run>_<outcome>), and the
// age bound keeps every later replay inside the memory's 48 h. Only the signature ties a delivery to this trigger;
// the memory is bounded (dedupe.ts MAX_REMEMBERED), so more than that many accepted runs within 48 h could push
// one out early.
import type { IWebhookFunctions } from 'n8n-workflow';

import type { RunRecord } from '../shared/records';
import { readFinalRun } from '../shared/runReadBack';
import { recordDifference, type Claim } from './claim';

/** The read itself, once the call is answered: as long as a slow service may take. */
const READ_MS = 60_000;

/** Whether an API credential is attached to the trigger (the slot is optional). */
export function hasApiCredential(ctx: IWebhookFunctions): boolean {
	return !!ctx.getNode().credentials?.mediaGenApi;
}

/** The claimed run as the service records it, when final and matching the body; else why it is refused. */
export async function confirmClaim(
	ctx: IWebhookFunctions,
	claim: Claim,
): Promise<{ run: RunRecord } | { problem: string }> {
	let run: RunRecord | undefined;
	try {
		run = await readFinalRun(ctx, claim.runId, undefined, READ_MS);
	} catch (error) {
		return { problem: `the Media Generation API credential cannot read it back: ${(error as Error).message}` };
	}
	if (!run) return { problem: `its run ${claim.runId} did not read back as a finished run of the account` };
	const difference = recordDifference(claim.body, run);
	return difference ? { problem: `${difference} (run ${run.id} as read back)` } : { run };
}

/** What n8n's log says when a delivery is refused for its signature: which secret was expected, and the way out. */
export function refusedDeliveryLog(ctx: IWebhookFunctions, reason: string, readBackProblem?: string): string {
	const node = ctx.getNode();
	const credential = node.credentials?.mediaGenWebhookApi?.name;
	const way = readBackProblem
		? `It was not taken with the API credential either: ${readBackProblem}.`
		: 'Attach a Media Generation API credential (an API key) to the trigger to take deliveries of your ' +
			"account's runs after reading them back from the service.";
	return (
		`Media Generation Trigger "${node.name}": refused a delivery (${reason}). It was not signed with the secret ` +
		`in the Webhook Signing Secret credential${credential ? ` "${credential}"` : ''}. Deliveries to an endpoint ` +
		"registered in account settings are signed with that endpoint's secret; deliveries of runs that name this " +
		`URL as their Webhook URL may be signed with another secret. ${way} Runs made with an anonymous ID cannot be ` +
		'checked here: an anonymous ID has no account settings and no signing secret, and an API key cannot read its ' +
		'runs back.'
	);
}
