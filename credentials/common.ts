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

/**
 * An authenticate() that sets one identity header only once the Base URL and the secret have the right shape, so a
 * bad value is refused, saying the shape expected, before anything is sent. GET /models and GET /apps need no
 * identity and get none: an anonymous ID sent there could open a free wallet for nothing.
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
		if ((requestOptions.method ?? 'GET') === 'GET' && /^\/?(models|apps)\/?$/.test(String(requestOptions.url ?? '')))
			return requestOptions;
		requestOptions.headers = { ...(requestOptions.headers ?? {}), ...header(String(secret).trim()) };
		return requestOptions;
	};
}

/** A connection test: GET `url` from the Base URL as typed; each status of `refusals`, and 404, says what is wrong. */
export function connectionTest(url: string, refusals: Record<number, string> = {}): ICredentialTestRequest {
	const messages: Record<number, string> = {
		...refusals,
		404:
			'The Base URL does not lead to the API: it must be the version 1 root, ending in /v1 (for example ' +
			'https://api.example.com/v1).',
	};
	return {
		request: { baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}', url, method: 'GET' },
		rules: Object.entries(messages).map(([value, message]) => ({
			type: 'responseCode',
			properties: { value: Number(value), message },
		})),
	};
}
