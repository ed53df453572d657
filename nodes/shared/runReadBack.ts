// A delivery failing the signature check is still a wake-up call: the run as GET /generations/{id} returns it to the
// user's own credential settles it (another identity's runs are not found). CANCELED is final but neither outcome.
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { generationAnswerProblem } from './responseChecks';
import { FINAL_STATUSES, type RunRecord } from './records';
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

/**
 * The service counts a delivery not answered 2xx within 10 s as failed and sends it again (Delivery rules 1 and 2);
 * n8n's own work around webhook() counts too. So `work` still going after ANSWER_WITHIN_MS has `late()` answer the
 * call first and is then awaited to its end: a race, not an aborted timer (n8n 1.x's sleep takes no abort signal).
 */
const ANSWER_WITHIN_MS = 6_000;

export async function finishAfterAnswering<T>(work: Promise<T>, late: () => void): Promise<T> {
	const timedOut = Symbol('late');
	const first = await Promise.race([work, sleep(ANSWER_WITHIN_MS).then(() => timedOut)]);
	if (first !== timedOut) return first as T;
	late();
	return await work;
}
