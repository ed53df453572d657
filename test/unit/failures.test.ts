// nodes/shared/transport/failureClasses.ts: what each classifier counts, on errors built as the request loop builds them.
import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiError, noAnswerError, unexpectedAnswerError } from '../../nodes/shared/transport/apiError';
import {
	isBusySubmission,
	isLostAnswer,
	isRetryableRead,
	isTransientFailure,
} from '../../nodes/shared/transport/failureClasses';
import type { Identity } from '../../nodes/shared/transport/identity';
import { testNode } from '../helpers/node';

const node: INode = testNode();
const id: Identity = {
	kind: 'apiKey',
	credentialType: 'mediaGenApi',
	baseUrl: 'http://127.0.0.1:1/v1',
	fingerprint: 'f',
	secrets: ['sk_0123456789abcdef'],
};
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

test('a request with no answer is a NodeApiError naming the route and the reason, without the run id', () => {
	const error = failures.noAnswer;
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toBe('No answer from the Media Generation API to GET /generations/{id}: socket hang up');
	expect(error.description).toMatch(/^Check the Base URL in the credential \(now http:\/\/127\.0\.0\.1:1\/v1\)/);
	expect(error.httpCode).toBeNull();
});
