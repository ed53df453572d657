// A delivery failing the signature check with an API credential attached: a claim about a run, taken only when the
// body is exactly the run as GET /generations/{id} reads it back. The record, never the body, starts the workflow.
import type { IWebhookFunctions } from 'n8n-workflow';

import type { RunRecord } from '../shared/records';
import { isObject, runRecordProblem } from '../shared/responseChecks';
import { finishAfterAnswering, readFinalRun } from '../shared/runReadBack';
import { headerOf, isUnprovenSignature, type VerifyResult } from '../shared/signature';
import { REMEMBER_MS, wasAccepted } from './dedupe';
import { jsonOf, outcomeOf } from './delivery';

/**
 * How old a run (createdAt, service clock) may be for a read-back to be taken: a genuine delivery's last retry comes
 * about 33 h after the run began. A read-back cannot prove the call was meant for this URL, so a copied body starts
 * the workflow once: its replays, within 36 h of the run's start, always meet the first's 48 h memory (12 h for skew).
 */
export const READ_BACK_MAX_AGE_MS = 36 * 3600 * 1000;
const SKEW_MARGIN_MS = REMEMBER_MS - READ_BACK_MAX_AGE_MS;

/** The read itself, once the call is answered: as long as a slow service may take. */
const READ_MS = 60_000;

/** A run a call claims to deliver, with the webhook-id the service gives it (the call's own, checked equal). */
type Claim = { runId: string; webhookId: string; body: Record<string, unknown> };
/** A claim the service's record bore out. */
export type ReadBack = { run: RunRecord; outcome: string; webhookId: string };

/**
 * The run a call claims to deliver, or why it cannot be a delivery of the service: the spec gives it the webhook-id
 * msg_<run_id>_<outcome>, for SUCCEEDED and FAILED runs only. A refused call is not read, so a forgery costs one read.
 */
export function readClaim(webhookId: string | undefined, raw: Buffer, now: number): Claim | { problem: string } {
	const body = jsonOf(raw);
	if (body === undefined) return { problem: 'its body is not JSON' };
	if (runRecordProblem(body) !== undefined) return { problem: 'its body is not a run record' };
	const run = body as Record<string, unknown> & Pick<RunRecord, 'id' | 'status'>;
	if (run.status !== 'SUCCEEDED' && run.status !== 'FAILED') {
		return { problem: `its run is ${run.status}: the service delivers only succeeded and failed runs` };
	}
	const expected = `msg_${run.id}_${outcomeOf(run.status)}`;
	if (webhookId?.trim() !== expected) {
		return { problem: `its webhook-id is not ${expected}, the one the service gives that run and outcome` };
	}
	const createdAt = run.createdAt;
	if (typeof createdAt !== 'number' || !Number.isFinite(createdAt)) return { problem: 'its run has no createdAt' };
	if (createdAt - now > SKEW_MARGIN_MS) return { problem: 'its run begins in the future' };
	if (now - createdAt > READ_BACK_MAX_AGE_MS) {
		return {
			problem:
				`its run began ${Math.round((now - createdAt) / 3600_000)} h ago: deliveries are taken on a read-back ` +
				`only within ${READ_BACK_MAX_AGE_MS / 3600_000} h of a run's start, while a repeat is still recognised`,
		};
	}
	return { runId: run.id, webhookId: expected, body: run };
}

/** Equal as JSON values: same types, arrays in order, objects with the same keys in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (Array.isArray(a) || Array.isArray(b)) {
		return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
	}
	if (!isObject(a) || !isObject(b)) return false;
	const keys = Object.keys(a);
	return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/**
 * Where the body departs from the service's record, or undefined when it says exactly what the record says: the only
 * field it may add is a failed run's `refunded`, a whole number of credits no larger than the run's cost.
 */
export function recordDifference(body: Record<string, unknown>, record: RunRecord): string | undefined {
	const service = record as unknown as Record<string, unknown>;
	for (const [field, value] of Object.entries(service)) {
		if (!Object.hasOwn(body, field)) return `its body has no "${field}"`;
		if (!sameJson(body[field], value)) return `its "${field}" is not the service's`;
	}
	const refund = body.refunded;
	const fairRefund = typeof refund === 'number' && Number.isInteger(refund) && refund >= 0 && refund <= record.cost;
	const allowed = (field: string) => field === 'refunded' && record.status === 'FAILED' && fairRefund;
	const extra = Object.keys(body).find((field) => !Object.hasOwn(service, field) && !allowed(field));
	return extra === undefined ? undefined : `its body has "${extra}", which the service's record of the run does not`;
}

/** What n8n's log says when a delivery is refused for its signature: which secret was expected, and the way out. */
function refusedDeliveryLog(ctx: IWebhookFunctions, reason: string, readBackProblem?: string): string {
	const node = ctx.getNode();
	const credential = node.credentials?.mediaGenWebhookApi?.name;
	const way = readBackProblem
		? `It was not taken with the API credential either: ${readBackProblem}.`
		: 'Turn on Check Unverified Deliveries in the trigger and pick a Media Generation API credential (an API ' +
			"key) in its API Key box to take deliveries of your account's runs after reading them back from the service.";
	return (
		`Media Generation Trigger "${node.name}": refused a delivery (${reason}). It was not signed with the secret ` +
		`in the Webhook Signing Secret credential${credential ? ` "${credential}"` : ''}. Deliveries to an endpoint ` +
		"registered in account settings are signed with that endpoint's secret; deliveries of runs that name this " +
		`URL as their Webhook URL may be signed with another secret. ${way} Runs made with an anonymous ID cannot be ` +
		'checked here: an anonymous ID has no account settings and no signing secret, and an API key cannot read its ' +
		'runs back.'
	);
}

/**
 * A delivery that failed the signature check: its run as read back, 'duplicate' (an accepted webhook-id: no read), or
 * 'refused' (logged, saying why). `late()` answers the call when the read outlasts what the service waits.
 */
export async function takeOnReadBack(
	ctx: IWebhookFunctions,
	verdict: Extract<VerifyResult, { ok: false }>,
	raw: Buffer,
	seen: { store: Record<string, unknown>; memoryKey: string },
	late: () => void,
): Promise<ReadBack | 'duplicate' | 'refused'> {
	const node = ctx.getNode();
	const refuse = (problem?: string) => {
		if (verdict.field) ctx.logger.error(`Media Generation Trigger "${node.name}": ${verdict.reason}`);
		else if (isUnprovenSignature(verdict.code)) ctx.logger.warn(refusedDeliveryLog(ctx, verdict.reason, problem));
		return 'refused' as const;
	};
	const webhookId = headerOf(ctx.getHeaderData() as Record<string, unknown>, 'webhook-id');
	// Version 1 nodes read back whenever the API Key box holds a credential (their hidden default is on).
	const readBack = ctx.getNodeParameter('readBack', true) === true;
	const withApiKey = isUnprovenSignature(verdict.code) && readBack && !!node.credentials?.mediaGenApi;
	const claim = withApiKey ? readClaim(webhookId, raw, Date.now()) : undefined;
	if (!claim || 'problem' in claim) return refuse(claim?.problem);
	if (wasAccepted(seen.store, seen.memoryKey, claim.webhookId, Date.now())) return 'duplicate';
	let run: RunRecord | undefined;
	try {
		run = await finishAfterAnswering(readFinalRun(ctx, claim.runId, undefined, READ_MS), late);
	} catch (error) {
		return refuse(`the Media Generation API credential cannot read it back: ${(error as Error).message}`);
	}
	if (!run) return refuse(`its run ${claim.runId} did not read back as a finished run of the account`);
	const difference = recordDifference(claim.body, run);
	if (difference) return refuse(`${difference} (run ${run.id} as read back)`);
	ctx.logger.warn(
		`Media Generation Trigger "${node.name}": a delivery failed the signature check (${verdict.reason}); its run ` +
			`${run.id} read back as ${run.status} with the API credential, exactly as the delivery said, so it was taken`,
	);
	return { run, outcome: outcomeOf(run.status), webhookId: claim.webhookId };
}
