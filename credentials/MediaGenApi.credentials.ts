// Media Generation API: the Base URL and an API key (Authorization: Bearer sk_…), tested with GET /me (free).
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { MEDIAGEN_ICON } from '../nodes/shared/icon';
import { baseUrlProperty, connectionTest, identityHeader } from './common';
import { describeApiKeyProblem } from '../nodes/shared/transport/identity';

export class MediaGenApi implements ICredentialType {
	name = 'mediaGenApi';
	displayName = 'Media Generation API';
	icon = MEDIAGEN_ICON;
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';
	properties: INodeProperties[] = [
		baseUrlProperty,
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'sk_…',
			description:
				'Your secret key from the account settings: sk_ followed by 40 hex characters. Runs are billed to the ' +
				'account, ' +
				'use every model and give clean (unwatermarked) files.',
		},
	];

	authenticate = identityHeader(
		(data) => data.apiKey,
		describeApiKeyProblem,
		(key) => ({ Authorization: `Bearer ${key}` }),
	);

	// GET /me spends nothing.
	test = connectionTest('/me', {
		401:
			'The service did not accept this API key: it is unknown, revoked or mistyped. Copy it again from your account ' +
			'settings.',
	});
}
