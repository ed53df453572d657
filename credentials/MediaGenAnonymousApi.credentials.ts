// Media Generation Anonymous (free tier): the Base URL and a self-chosen anonymous id (x-anon-id), tested without it.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { MEDIAGEN_ICON } from '../nodes/shared/icon';
import { baseUrlProperty, connectionTest, identityHeader } from './common';
import { describeAnonymousIdProblem, readAnonymousId } from '../nodes/shared/transport/identity';

export class MediaGenAnonymousApi implements ICredentialType {
	name = 'mediaGenAnonymousApi';
	displayName = 'Media Generation Anonymous (Free Tier) API';
	icon = MEDIAGEN_ICON;
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';
	properties: INodeProperties[] = [
		{
			displayName:
				'The free tier covers only the free house image engine, gives 5 credits per ID and returns watermarked ' +
				'images. ' +
				'Use the Media Generation API credential (API key) for every other model. Testing this credential checks ' +
				"the ID's shape and that the Base URL reaches the service, without using the ID, so it opens no wallet: " +
				'each address may open only 3 a day, and the first run opens one.',
			name: 'freeTierNotice',
			type: 'notice',
			default: '',
		},
		baseUrlProperty,
		{
			displayName: 'Anonymous ID',
			// "secret" in the name keeps it masked under n8n's lint, which unmasks fields named like plain ids:
			// whoever has this id can spend its credits.
			name: 'secretAnonymousId',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'my-n8n-workflow-01',
			description:
				'Any ID you choose: 8 to 80 characters of letters, digits, ".", "_" or "-". The first request opens a free ' +
				'wallet of 5 credits for it. Keep it private: whoever has it can spend its credits.',
		},
		{
			// The field's name in earlier builds: listed (hidden) so that n8n keeps the value of a credential saved then.
			displayName: 'Anonymous ID (Earlier Name)',
			name: 'anonymousId',
			type: 'hidden',
			default: '',
		},
	];

	authenticate = identityHeader(readAnonymousId, describeAnonymousIdProblem, (id) => ({ 'x-anon-id': id }));
	// The first request made with an ID opens its wallet, and an address may open only 3 a day, so the test sends no
	// ID: authenticate() checks its shape and the Base URL, and GET /models (no identity) that the Base URL is the API.
	test = connectionTest('/models');
}
