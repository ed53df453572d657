// The webhook endpoint's signing secret (whsec_…) and, while rotating, the previous one; used by the trigger.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { MEDIAGEN_ICON } from './common';

export class MediaGenWebhookApi implements ICredentialType {
	name = 'mediaGenWebhookApi';

	displayName = 'Media Generation Webhook Signing Secret API';

	icon = MEDIAGEN_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mediagen';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'whsec_…',
			description:
				'The signing secret of the webhook endpoint, copied from your account settings: whsec_ followed by base64 ' +
				'text. Deliveries whose signature does not match are refused.',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_…',
			description:
				'Optional. While you rotate the secret, put the old one here so deliveries signed with either secret are ' +
				'accepted. Clear it once the rotation is done.',
		},
	];
}
