// nodes/shared/transport/failureClasses.ts: what each classifier counts, on errors built as the request loop
// builds them.
import type { INode } from 'n8n-workflow';

import { apiError, noAnswerError, unexpectedAnswerError } from '../../../../../nodes/shared/transport/apiError';
import {
	isBusySubmission,
	isLostAnswer,
	isRetryableRead,
	isTransientFailure,
} from '../../../../../nodes/shared/transport/failureClasses';
import { testIdentity as id } from '../../../../helpers/identity';
import { testNode } from '../../../../helpers/node';

const node: INode = testNode();
const route = { method: 'GET', path: '/generations/gen_1' };

const failures = {
	noAnswer: noAnswerError(node, route, id, new Error('socket hang up')),
	unexpected: unexpectedAnswerError(node, route, id, 200, 'no generation', {}),
	busy: apiError(node, 409, { error: 'busy' }, id),
	rateLimited: apiError(node, 429, { error: 'rate_limited' }, id),
	serverError: apiError(node, 500, {}, id),
	notFound: apiError(node, 404, { error: 'not_found' }, id),
	invalid: apiError(node, 400, { error: 'invalid' }, id),
	plain: new Error('not from the service'),
};

test.each([
	['isLostAnswer', isLostAnswer, ['noAnswer', 'unexpected']],
	['isBusySubmission', isBusySubmission, ['busy']],
	['isTransientFailure', isTransientFailure, ['noAnswer', 'unexpected', 'rateLimited', 'serverError']],
	['isRetryableRead', isRetryableRead, ['noAnswer', 'unexpected', 'rateLimited', 'serverError', 'notFound']],
])('%s counts exactly its failures', (_name, classify, counted) => {
	const matched = Object.entries(failures)
		.filter(([, error]) => classify(error))
		.map(([name]) => name);
	expect(matched).toEqual(counted);
});
