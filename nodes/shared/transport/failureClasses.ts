// What a failure means for trying again: one name per meaning, each saying exactly what it counts.
// Every caller that decides "send it again" or "read it again later" asks one of these, never an error's code
// itself (a 409 busy is asked about only by run/submission.ts, the one place that handles it).
import { MediaGenApiError } from './apiError';

/** A dropped, refused or timed-out connection (the request loop sends reads and keyed writes again). */
export function isTransportFailure(error: unknown): boolean {
	const e = error as { code?: string; cause?: { code?: string }; message?: string; httpCode?: string | null };
	const code = e?.cause?.code ?? e?.code ?? '';
	if (
		[
			'ECONNRESET',
			'ECONNREFUSED',
			'ETIMEDOUT',
			'ECONNABORTED',
			'EPIPE',
			'ERR_BAD_RESPONSE',
			'EAI_AGAIN',
			'ESOCKETTIMEDOUT',
		].includes(code)
	)
		return true;
	return /socket hang up|timeout|ECONNRESET|ECONNREFUSED|aborted|network/i.test(String(e?.message ?? ''));
}

/** No answer, or an answer this node cannot read: the request may or may not have been processed. */
export function isLostAnswer(error: unknown): boolean {
	return error instanceof MediaGenApiError && (error.code === 'no_answer' || error.code === 'unexpected_answer');
}

/** 409 busy: every run slot of the account is taken; the submission was refused and nothing was charged. */
export function isBusySubmission(error: unknown): boolean {
	return error instanceof MediaGenApiError && error.code === 'busy';
}

/** A lost answer, 429 or a 5xx: says nothing about the request itself, and may pass (busy is not counted). */
export function isTransientFailure(error: unknown): boolean {
	if (isLostAnswer(error)) return true;
	if (!(error instanceof MediaGenApiError)) return false;
	const status = Number(error.httpCode);
	return status === 429 || status >= 500;
}

/** A failed read of a run that the next poll may well get: a transient failure, or 404 (not visible yet). */
export function isRetryableRead(error: unknown): boolean {
	return isTransientFailure(error) || (error instanceof MediaGenApiError && Number(error.httpCode) === 404);
}
