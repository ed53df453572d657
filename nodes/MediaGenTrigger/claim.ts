// A delivery that failed the signature check, read as a claim about a run, and the test that the service's record
// bears it out, as pure functions (readBack.ts does the reading). The spec makes the body "the generation object
// exactly as GET /generations/{id} returns it" (a failed run's also carries `refunded`) and the webhook-id
// `msg_<run_id>_<outcome>`, sent only for SUCCEEDED and FAILED runs: a call that says anything else is not the
// service's, and is refused before any read.
import { runRecordProblem } from '../shared/responseChecks';
import type { RunRecord } from '../shared/records';
import { REMEMBER_MS } from './dedupe';

/** The outcome a status stands for, in webhook-ids and the trigger's output: only FAILED is "failed". */
export function outcomeOf(status: string): string {
	return status === 'SUCCEEDED' ? 'succeeded' : status === 'FAILED' ? 'failed' : status.toLowerCase();
}

/**
 * How old a run (its createdAt, service clock) may be for a read-back to be taken. A genuine delivery's last retry
 * comes about 33 h after the run began (a run ends within 30 min, stuck ones fail then; retries end 32.6 h after
 * the first attempt). Any read-back taken is remembered for REMEMBER_MS (48 h) from then, so a replay of it, which
 * this bound keeps within 36 h of the run's start, always meets that memory (12 h left for clock skew).
 */
export const READ_BACK_MAX_AGE_MS = 36 * 3600 * 1000;
const SKEW_MARGIN_MS = REMEMBER_MS - READ_BACK_MAX_AGE_MS;

export interface Claim {
	runId: string;
	/** The webhook-id the service gives this run and outcome; the call's own header, checked equal. */
	webhookId: string;
	body: Record<string, unknown>;
}

/** The run a call claims to deliver, or why it cannot be a delivery of the service (then nothing is read). */
export function readClaim(webhookId: string | undefined, raw: Buffer, now: number): Claim | { problem: string } {
	let body: unknown;
	try {
		body = JSON.parse(raw.toString('utf8'));
	} catch {
		return { problem: 'its body is not JSON' };
	}
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

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
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
 * Where the body departs from the service's record (the first field named), or undefined when it says exactly
 * what the record says. Every field of the record must be there and equal; the only field the body may add is
 * `refunded` on a failed run, a whole number of credits no larger than the run's cost.
 */
export function recordDifference(body: Record<string, unknown>, record: RunRecord): string | undefined {
	const service = record as unknown as Record<string, unknown>;
	for (const [field, value] of Object.entries(service)) {
		if (!Object.hasOwn(body, field)) return `its body has no "${field}"`;
		if (!sameJson(body[field], value)) return `its "${field}" is not the service's`;
	}
	for (const field of Object.keys(body)) {
		if (Object.hasOwn(service, field)) continue;
		const refund = body.refunded;
		const fairRefund = typeof refund === 'number' && Number.isInteger(refund) && refund >= 0 && refund <= record.cost;
		if (field === 'refunded' && record.status === 'FAILED' && fairRefund) continue;
		return `its body has "${field}", which the service's record of the run does not`;
	}
	return undefined;
}
