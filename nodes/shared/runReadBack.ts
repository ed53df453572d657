// A delivery that fails the signature check is still a wake-up call: what the nodes believe is what the service
// says when asked with the user's own API credential (GET /generations/{id}, which also settles the run). A
// record of another identity is not found, so only the account's own runs can be read back.
import type { IWebhookFunctions } from 'n8n-workflow';

import { generationAnswerProblem } from './answers';
import { FINAL_STATUSES, type RunRecord } from './records';
import { apiRequest, type Identity } from './transport';

/** A webhook call answers within seconds: the read gets this long. */
const READ_BACK_MS = 5_000;

/** The run as the service tells it to this identity when it is final, else undefined (not final, or not read). */
export async function readFinalRun(
	ctx: IWebhookFunctions,
	identity: Identity,
	runId: string,
	itemIndex?: number,
): Promise<RunRecord | undefined> {
	try {
		const res = await apiRequest<{ generation: RunRecord }>(
			ctx,
			{
				method: 'GET',
				path: `/generations/${encodeURIComponent(runId)}`,
				itemIndex,
				deadline: Date.now() + READ_BACK_MS,
				expect: generationAnswerProblem,
			},
			identity,
		);
		const run = res.body.generation;
		return run.id === runId && FINAL_STATUSES.includes(run.status) ? run : undefined;
	} catch {
		return undefined;
	}
}

/** Failures of the check that a read-back may overrule: the signature, not the shape of the call. */
export function isSignatureMismatch(verdict: { reason: string; field?: string }): boolean {
	return (
		verdict.field === 'Signing Secret' ||
		verdict.reason === 'Signature does not match' ||
		verdict.reason === 'No v1 signature in webhook-signature'
	);
}
