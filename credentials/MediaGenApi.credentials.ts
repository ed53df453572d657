import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { describeApiKeyProblem, describeBaseUrlProblem } from './shapes';

export class MediaGenApi implements ICredentialType {
	name = 'mediaGenApi';

	displayName = 'Media Generation API';

	icon: Icon = { light: 'file:mediagen.svg', dark: 'file:mediagen.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/v1',
			description:
				'The version 1 root of the API, ending in /v1. For the local sandbox use the address that "npm run sandbox" prints.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'sk_…',
			description:
				'Your secret key from the account settings: sk_ followed by 40 hex characters. Runs are billed to the account, use every model and give clean (unwatermarked) files.',
		},
	];

	// A function rather than a header template so that a malformed key is refused
	// before anything is sent, with a message that says which shape is expected.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const problem = describeBaseUrlProblem(credentials.baseUrl) ?? describeApiKeyProblem(credentials.apiKey);
		if (problem) throw new Error(problem);
		requestOptions.headers = {
			...(requestOptions.headers ?? {}),
			Authorization: `Bearer ${String(credentials.apiKey).trim()}`,
		};
		return requestOptions;
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			url: '/me',
			method: 'GET',
		},
	};
}
