// The only HTTP to the Media Generation API, as the nodes use it: who is calling (identity.ts), one request paced,
// waited out and retried (request.ts), and its errors with what each means for trying again (errors.ts).
export { identityOf, type ApiContext } from './identity';
export { apiRequest, sleepUnlessAborted } from './request';
export {
	isBusySubmission,
	isLostAnswer,
	isOutOfCredits,
	isRetryableRead,
	isTransientFailure,
	MediaGenApiError,
	NOTHING_CHARGED,
	NOTHING_CHARGED_OPENING,
} from './errors';
