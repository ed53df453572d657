// What the credentials share: the Base URL field, the header each sets after a shape check, and the connection
// tests with readable failures. The shape checks and the icon are in nodes/shared (the nodes use them too).
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { describeBaseUrlProblem } from '../nodes/shared/transport/identity';

export const baseUrlProperty: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'https://api.example.com/v1',
	description:
		"The address of the Media Generation API's version 1, starting with https:// and ending in /v1. Plain http:// " +
		'is refused (it would send your secret unencrypted) except for a test service on this computer.',
};

/** Paths that need no identity (spec: GET /models and GET /apps), so no secret is sent to them. */
const OPEN_PATHS = /^\/?(models|apps)\/?$/;

/**
 * An authenticate() that sets one identity header after checking the Base URL and the secret's shape, so
 * a malformed or empty value, or a Base URL that would carry it in clear, is refused before anything is sent
 * (and never becomes an empty header). A function rather than a header template, so the message can say
 * which shape is expected. The catalogues need no identity and get none: an anonymous ID sent there could
 * open a free wallet for nothing.
 */
export function identityHeader(
	readSecret: (credentials: ICredentialDataDecryptedObject) => unknown,
	secretProblem: (value: unknown) => string | undefined,
	header: (value: string) => Record<string, string>,
) {
	return async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const secret = readSecret(credentials);
		const problem = describeBaseUrlProblem(credentials.baseUrl) ?? secretProblem(secret);
		if (problem) throw new Error(problem);
		if ((requestOptions.method ?? 'GET') === 'GET' && OPEN_PATHS.test(String(requestOptions.url ?? '')))
			return requestOptions;
		requestOptions.headers = { ...(requestOptions.headers ?? {}), ...header(String(secret).trim()) };
		return requestOptions;
	};
}

const BASE_URL_EXPRESSION = '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}';

const WRONG_BASE_URL =
	'The Base URL does not lead to the API: it must be the version 1 root, ending in /v1 (for example ' +
	'https://api.example.com/v1).';

/** The API key's test: GET /me with the key, which spends nothing. */
export function apiKeyTest(): ICredentialTestRequest {
	return {
		request: { baseURL: BASE_URL_EXPRESSION, url: '/me', method: 'GET' },
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The service did not accept this API key: it is unknown, revoked or mistyped. Copy it again from ' +
						'your account settings.',
				},
			},
			{ type: 'responseCode', properties: { value: 404, message: WRONG_BASE_URL } },
		],
	};
}

/**
 * The anonymous ID's test. The first request made with an ID opens its wallet, and an address may open only
 * 3 a day, so the test sends no ID: it checks the ID's shape and the Base URL here, and that the Base URL
 * answers as the API (GET /models, which needs no identity). Whether the service still grants a wallet today
 * shows on the first run.
 */
export function anonymousIdTest(): ICredentialTestRequest {
	return {
		request: { baseURL: BASE_URL_EXPRESSION, url: '/models', method: 'GET' },
		rules: [{ type: 'responseCode', properties: { value: 404, message: WRONG_BASE_URL } }],
	};
}
