// A webhook signing secret (whsec_…) and, while rotating, the previous one: the trigger and pause mode verify
// deliveries with it.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { MEDIAGEN_ICON } from '../nodes/shared/icon';

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
				'whsec_ followed by base64 text, from your account settings. Which one: for deliveries to an endpoint ' +
				"registered in your account settings, that endpoint's secret. For deliveries to a run's own Webhook URL " +
				'(a Webhook URL typed into a Generate or Run Look step, and Waiting → Pause), try your account signing ' +
				'secret (account settings → Webhooks); the service may sign those with another. When it does not match: ' +
				'Waiting → Pause reads each run back with your API credential and takes it, with a warning on the output; ' +
				'the trigger does the same when an API credential is attached to it, and otherwise refuses the delivery, ' +
				"which then shows as failed in your account settings' list of deliveries.",
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
