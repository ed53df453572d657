// Media Generation Anonymous (free tier): the Base URL and a self-chosen anonymous id (x-anon-id), tested with GET /me.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { baseUrlProperty, identityHeader, identityTest, MEDIAGEN_ICON } from './common';
import { describeAnonymousIdProblem } from './shapes';

export class MediaGenAnonymousApi implements ICredentialType {
	name = 'mediaGenAnonymousApi';

	displayName = 'Media Generation Anonymous (Free Tier) API';

	icon = MEDIAGEN_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';

	properties: INodeProperties[] = [
		{
			displayName:
				'The free tier covers only the free house image engine, gives 5 credits per ID and returns watermarked images. ' +
				'Use the Media Generation API credential (API key) for every other model.',
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
	];

	authenticate = identityHeader('secretAnonymousId', describeAnonymousIdProblem, (id) => ({ 'x-anon-id': id }));

	test = identityTest('anonymous ID');
}
