// The only HTTP to the Media Generation API, as the nodes use it: who is calling (identity.ts), the request
// loop (request.ts), the errors it throws (apiError.ts, worded from the table in errorTable.ts) and what a failure
// means for trying again (failureClasses.ts). Pacing by rate headers is rateGate.ts; waits a cancel ends, sleep.ts.
export { identityOf, type ApiContext } from './identity';
export { apiRequest, type ApiRequest, type ApiResponse } from './request';
export { MediaGenApiError } from './apiError';
export { isBusySubmission, isLostAnswer, isRetryableRead, isTransientFailure } from './failureClasses';
export { sleepUnlessAborted } from './sleep';
