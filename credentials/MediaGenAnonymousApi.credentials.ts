import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { describeAnonymousIdProblem, describeBaseUrlProblem } from './shapes';

export class MediaGenAnonymousApi implements ICredentialType {
	name = 'mediaGenAnonymousApi';

	displayName = 'Media Generation Anonymous (Free Tier) API';

	icon: Icon = { light: 'file:mediagen.svg', dark: 'file:mediagen.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';

	properties: INodeProperties[] = [
		{
			displayName:
				'The free tier covers only the free house image engine, gives 5 credits per ID and returns watermarked images. Use the Media Generation API credential (API key) for every other model.',
			name: 'freeTierNotice',
			type: 'notice',
			default: '',
		},
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
			displayName: 'Anonymous ID',
			name: 'anonymousId',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'my-n8n-workflow-01',
			description:
				'Any ID you choose: 8 to 80 characters of letters, digits, ".", "_" or "-". The first request opens a free wallet of 5 credits for it. Keep it private: whoever has it can spend its credits.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const problem =
			describeBaseUrlProblem(credentials.baseUrl) ?? describeAnonymousIdProblem(credentials.anonymousId);
		if (problem) throw new Error(problem);
		requestOptions.headers = {
			...(requestOptions.headers ?? {}),
			'x-anon-id': String(credentials.anonymousId).trim(),
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
