// nodes/shared/transport/errors.ts: the spec's error table as data, its advice, secrets kept out of messages, the
// error of a request that got no answer, and what each failure classifier counts.
import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import {
	apiError,
	describeApiError,
	ERROR_ADVICE,
	isBusySubmission,
	isLostAnswer,
	isRetryableRead,
	isTransientFailure,
	noAnswerError,
	redactSecrets,
	unexpectedAnswerError,
} from '../../../../../nodes/shared/transport/errors';
import { testIdentity as id } from '../../../../helpers/identity';
import { testNode } from '../../../../helpers/node';

const SPEC_CODES = [
	'invalid',
	'rejected',
	'unauthorized',
	'invalid_api_key',
	'unknown_anon_id',
	'credits',
	'allowance',
	'needs_api_key',
	'not_found',
	'busy',
	'too_large',
	'anon_ip_daily',
	'rate_limited',
	'limit',
	'provider',
	'storage_unavailable',
	'moderation_unavailable',
	'paused',
	'trial_closed',
	'server_error',
];

const STATUS: Record<string, number> = {
	invalid: 400,
	rejected: 400,
	unauthorized: 401,
	invalid_api_key: 401,
	unknown_anon_id: 401,
	credits: 402,
	allowance: 402,
	needs_api_key: 403,
	trial_closed: 403,
	not_found: 404,
	busy: 409,
	too_large: 413,
	anon_ip_daily: 429,
	rate_limited: 429,
	limit: 429,
	provider: 502,
	storage_unavailable: 503,
	moderation_unavailable: 503,
	paused: 503,
	server_error: 500,
};

describe('error mapping', () => {
	test('every code of the spec has its own message and action', () => {
		const messages = new Set<string>();
		for (const code of SPEC_CODES) {
			const d = describeApiError(STATUS[code], { error: code, message: 'server words' });
			expect(ERROR_ADVICE[code]).toBeDefined();
			expect(d.code).toBe(code);
			expect(d.message).toBe(ERROR_ADVICE[code].message);
			expect(d.description).toContain(ERROR_ADVICE[code].action);
			expect(d.description).toContain(`HTTP ${STATUS[code]}`);
			messages.add(d.message);
		}
		expect(messages.size).toBe(SPEC_CODES.length);
	});

	test.each([
		['invalid', 'Fix'],
		['rejected', 'Rewrite the prompt'],
		['unauthorized', 'credential'],
		['invalid_api_key', 'Check the key'],
		['credits', 'Top up'],
		['allowance', 'API key'],
		['needs_api_key', 'API key'],
		['trial_closed', 'API key'],
		['busy', 'Wait'],
		['too_large', 'Shrink'],
		['anon_ip_daily', 'API key'],
		['rate_limited', 'Wait'],
		['provider', 'was refunded, so a new run is not a second charge'],
		['moderation_unavailable', 'later'],
		['paused', 'later'],
		['server_error', 'Run the node again'],
	])('%s tells the user to: %s', (code, action) => {
		expect(describeApiError(STATUS[code], { error: code, message: 'x' }).description).toContain(action);
	});

	test('invalid lists each issue', () => {
		const d = describeApiError(400, {
			error: 'invalid',
			message: 'bad',
			issues: ['prompt is too long', 'options.aspect must be one of 1:1'],
		});
		expect(d.message).toContain('prompt is too long');
		expect(d.message).toContain('options.aspect must be one of 1:1');
		expect(d.issues).toHaveLength(2);
	});

	test('an unknown code still gives a readable error with the status', () => {
		const d = describeApiError(418, { error: 'teapot', message: 'short and stout' });
		expect(d.message).toContain('teapot');
		expect(d.message).toContain('HTTP 418');
		expect(d.message).toContain('short and stout');
	});

	test('a non-JSON body gives a readable error with the status', () => {
		expect(describeApiError(502, '<html>Bad gateway</html>').message).toContain('HTTP 502');
		expect(describeApiError(500, undefined).description).toContain('Try again');
		expect(describeApiError(404, null).message).toContain('HTTP 404');
	});

	test('secrets are redacted', () => {
		const key = `sk_${'ab'.repeat(20)}`;
		const text = redactSecrets(`key ${key} secret whsec_c2VjcmV0c2VjcmV0 anon my-anon-id-123`, ['my-anon-id-123']);
		expect(text).not.toContain(key);
		expect(text).not.toContain('whsec_c2VjcmV0c2VjcmV0');
		expect(text).not.toContain('my-anon-id-123');
	});
});

test('a request with no answer is a NodeApiError naming the route and the reason, without the run id', () => {
	const route = { method: 'GET', path: '/generations/gen_1' };
	const error = noAnswerError(testNode(), route, id, new Error('socket hang up'));
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toBe('No answer from the Media Generation API to GET /generations/{id}: socket hang up');
	expect(error.description).toMatch(/^Check the Base URL in the credential \(now http:\/\/127\.0\.0\.1:1\/v1\)/);
	expect(error.httpCode).toBeNull();
});

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
