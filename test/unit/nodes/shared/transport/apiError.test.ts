// nodes/shared/transport/apiError.ts: the error of a request that got no answer.
import { NodeApiError } from 'n8n-workflow';

import { noAnswerError } from '../../../../../nodes/shared/transport/apiError';
import { testIdentity } from '../../../../helpers/identity';
import { testNode } from '../../../../helpers/node';

test('a request with no answer is a NodeApiError naming the route and the reason, without the run id', () => {
	const route = { method: 'GET', path: '/generations/gen_1' };
	const error = noAnswerError(testNode(), route, testIdentity, new Error('socket hang up'));
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toBe('No answer from the Media Generation API to GET /generations/{id}: socket hang up');
	expect(error.description).toMatch(/^Check the Base URL in the credential \(now http:\/\/127\.0\.0\.1:1\/v1\)/);
	expect(error.httpCode).toBeNull();
});
