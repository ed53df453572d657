// Pause mode: a resume call sends a paused batch's item with its request key, which brings the run that key made
// before (uncharged) or a new one. It never waits: every slot busy (409) or a passing failure leaves the item for a
// later call; any other refusal is the item's outcome. A submission whose answer is lost may have been handled and
// charged, so the caller keeps it as unanswered and sends it again with the same key on a later call.
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { apiRequest, isBusySubmission, isLostAnswer, isTransientFailure } from '../../shared/transport';
import { generationAnswerProblem } from '../../shared/responseChecks';
import type { RunRecord } from '../../shared/records';
import { refusalOf, type Refusal } from '../run/runErrors';

/** Tries per call: one more after a passing failure, a second apart. */
const TRIES_PER_CALL = 2;

/**
 * What one send from a resume call brought: the item's run; every slot busy; a passing failure (`lost`: some try got
 * no usable answer, so the run may have been made and charged); or its refusal. A busy answer or a refusal shows the
 * key had no run when this send was handled, not that it never gets one: a send whose answer was lost may still have
 * been on its way. So an item whose earlier send lost its answer stays "may have been charged" (batchWalk.ts), as in
 * Poll mode (run/submission.ts).
 */
export type ResumeCallSend =
	| { run: RunRecord }
	| { busy: true }
	| { later: string; lost: boolean }
	| { refused: Refusal };

export async function sendFromResumeCall(
	ctx: IWebhookFunctions,
	body: IDataObject,
	itemIndex: number,
	deadline: number,
): Promise<ResumeCallSend> {
	let lost = false;
	for (let tries = 1; ; tries++) {
		try {
			// Each try is sent here (not by the request loop) so that a lost answer before a 5xx is not forgotten.
			const res = await apiRequest<{ generation: RunRecord }>(ctx, {
				method: 'POST',
				path: '/generations',
				body,
				itemIndex,
				deadline,
				expect: generationAnswerProblem,
			});
			return { run: res.body.generation };
		} catch (error) {
			if (isBusySubmission(error)) return { busy: true };
			if (!isTransientFailure(error)) return { refused: refusalOf(error) };
			lost ||= isLostAnswer(error);
			if (tries >= TRIES_PER_CALL || Date.now() + 1000 > deadline) {
				return { later: String((error as Error).message), lost };
			}
			await sleep(1000);
		}
	}
}
