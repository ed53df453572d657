// What the credentials share: the icon, the Base URL field, the header each
// sets after a shape check, and the connection test against GET /me with readable failures.
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	ICredentialTestRequest,
	INodeCredentialTestResult,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { describeBaseUrlProblem, describeWebhookCredentialProblem } from './shapes';

/** The one icon, kept in icons/ at the package root; n8n resolves `file:` paths from the file that names them. */
function iconFrom(root: string): Icon {
	return { light: `file:${root}icons/mediagen.svg`, dark: `file:${root}icons/mediagen.dark.svg` };
}

/** For credentials/<Name>.credentials.ts. */
export const MEDIAGEN_ICON = iconFrom('../');

/** For nodes/<Node>/<Node>.node.ts. */
export const MEDIAGEN_NODE_ICON = iconFrom('../../');

export const baseUrlProperty: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'https://api.example.com/v1',
	description:
		'The version 1 root of the API, ending in /v1. For the local sandbox use the address that "npm run sandbox" prints.',
};

/**
 * An authenticate() that sets one identity header after checking the Base URL and the secret's shape, so
 * a malformed or empty value is refused before anything is sent (and never becomes an empty header). A
 * function rather than a header template, so the message can say which shape is expected.
 */
export function identityHeader(
	field: string,
	secretProblem: (value: unknown) => string | undefined,
	header: (value: string) => Record<string, string>,
) {
	return async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const problem = describeBaseUrlProblem(credentials.baseUrl) ?? secretProblem(credentials[field]);
		if (problem) throw new Error(problem);
		requestOptions.headers = { ...(requestOptions.headers ?? {}), ...header(String(credentials[field]).trim()) };
		return requestOptions;
	};
}

/** GET /me with the credential; n8n shows these messages for the answers a person can act on. */
export function identityTest(secretName: string): ICredentialTestRequest {
	return {
		request: {
			baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			url: '/me',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						`The service did not accept this ${secretName}: it is unknown, revoked or mistyped. Copy it again ` +
						`from your account settings.`,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'The Base URL does not lead to the API: it must be the version 1 root, ending in /v1 (for example ' +
						'https://api.example.com/v1).',
				},
			},
		],
	};
}

/**
 * The connection test of the webhook signing secret (no request can test it: the service never asks
 * for it), used by every node that lists that credential: the shape of both fields.
 */
export async function checkSigningSecret(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const problem = describeWebhookCredentialProblem(credential.data ?? {});
	return problem
		? { status: 'Error', message: problem }
		: { status: 'OK', message: 'The signing secret has the expected shape' };
}
