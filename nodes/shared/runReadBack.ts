// A delivery that fails the signature check is still a wake-up call: what the nodes believe is what the service
// says when asked with the user's own API credential (GET /generations/{id}, which also settles the run). A
// record of another identity is not found, so only the account's own runs can be read back. A final run keeps its
// status as the service gives it: CANCELED is neither succeeded nor failed (shared/records.ts FINAL_STATUSES).
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { generationAnswerProblem } from './responseChecks';
import { FINAL_STATUSES, type RunRecord } from './records';
import type { VerifyCode } from './signature';
import { apiRequest, identityOf } from './transport';

/** A webhook call answers within seconds: by default the read gets this long to start its waits. */
const READ_BACK_MS = 5_000;

/**
 * The run as the service tells it to this identity when it is final, else undefined (not final, or not read).
 * `withinMs` bounds the read's waits and each attempt; a caller that answers its own call first may give it longer.
 */
export async function readFinalRun(
	ctx: IWebhookFunctions,
	runId: string,
	itemIndex?: number,
	withinMs?: number,
): Promise<RunRecord | undefined> {
	// A credential that cannot be read is the caller's error, not a run that did not read back.
	await identityOf(ctx);
	try {
		const res = await apiRequest<{ generation: RunRecord }>(ctx, {
			method: 'GET',
			path: `/generations/${encodeURIComponent(runId)}`,
			itemIndex,
			deadline: Date.now() + (withinMs ?? READ_BACK_MS),
			timeoutMs: withinMs,
			expect: generationAnswerProblem,
		});
		const run = res.body.generation;
		return run.id === runId && FINAL_STATUSES.includes(run.status) ? run : undefined;
	} catch {
		return undefined;
	}
}

/** Failures a read-back may overrule: the signature or the secret, not the shape or age of the call. */
export function isSignatureMismatch(verdict: { code: VerifyCode }): boolean {
	return verdict.code === 'secret-mismatch' || verdict.code === 'no-secret' || verdict.code === 'no-v1-signature';
}

/**
 * The service counts a delivery not answered 2xx within 10 s as failed and sends it again (Delivery rules 1 and 2).
 * n8n's own work before and after webhook() comes out of that too, so a read still going after this long is
 * answered first and finished afterwards.
 */
export const ANSWER_WITHIN_MS = 6_000;

/**
 * `work`'s result; when it takes longer than ANSWER_WITHIN_MS, `late()` is called first (it answers the call)
 * and the work is still awaited to its end. A race, not an aborted timer: n8n 1.x's sleep takes no abort signal.
 */
export async function finishAfterAnswering<T>(work: Promise<T>, late: () => void): Promise<T> {
	const timedOut = Symbol('late');
	const first = await Promise.race([work, sleep(ANSWER_WITHIN_MS).then(() => timedOut)]);
	if (first !== timedOut) return first as T;
	late();
	return await work;
}
