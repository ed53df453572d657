// The trigger, a delivery that fails the signature check while a Media Generation API credential is attached:
// the run its body names is read back from the service with that credential (shared/runReadBack.ts) and taken
// when it is final. What starts the workflow is the record read back, never the body that came, and its
// delivery ID is the one the service gives that run and outcome (msg_<run id>_<outcome>), so calls that vary
// their webhook-id start it at most once. Anything that does not name a run costs no read.
import type { IWebhookFunctions } from 'n8n-workflow';

import { runRecordProblem } from '../shared/answers';
import type { RunRecord } from '../shared/records';
import { readFinalRun } from '../shared/runReadBack';
import { getIdentity } from '../shared/transport';

/** Whether an API credential is attached to the trigger (the slot is optional). */
export function hasApiCredential(ctx: IWebhookFunctions): boolean {
	return !!ctx.getNode().credentials?.mediaGenApi;
}

/** The run the body names, read back when final, with the delivery ID the service gives it; else undefined. */
export async function readDeliveredRun(
	ctx: IWebhookFunctions,
	raw: Buffer,
): Promise<{ run: RunRecord; webhookId: string } | undefined> {
	let body: unknown;
	try {
		body = JSON.parse(raw.toString('utf8'));
	} catch {
		return undefined;
	}
	if (runRecordProblem(body) !== undefined) return undefined;
	const run = await readFinalRun(ctx, await getIdentity(ctx), (body as RunRecord).id);
	if (!run) return undefined;
	return { run, webhookId: `msg_${run.id}_${run.status === 'SUCCEEDED' ? 'succeeded' : 'failed'}` };
}

/** What n8n's log says when a delivery is refused for its signature: which secret was expected, and the way out. */
export function refusedDeliveryLog(ctx: IWebhookFunctions, reason: string): string {
	const node = ctx.getNode();
	const credential = node.credentials?.mediaGenWebhookApi?.name;
	return (
		`Media Generation Trigger "${node.name}": refused a delivery (${reason}). It was not signed with the secret ` +
		`in the Webhook Signing Secret credential${credential ? ` "${credential}"` : ''}. Deliveries to an endpoint ` +
		"registered in account settings are signed with that endpoint's secret; deliveries of runs that name this " +
		'URL as their Webhook URL may be signed with another secret. Attach a Media Generation API credential to ' +
		'the trigger to take such deliveries after reading the run back from the service.'
	);
}
