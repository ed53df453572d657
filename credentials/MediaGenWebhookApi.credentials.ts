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
				'whsec_ followed by base64 text. Which one: for deliveries to an endpoint registered in your account ' +
				"settings, that endpoint's secret. For deliveries to a run's own Webhook URL (a Webhook URL typed into a " +
				'Generate or Run Look step, and Waiting → Pause), the service does not say which secret signs them: with an ' +
				'API key, try your account signing secret (account settings → Webhooks). An anonymous ID has no account ' +
				'settings and no signing secret: enter any secret of this shape (whsec_ and at least 16 random bytes in ' +
				'base64); its deliveries then fail the check. When a delivery fails the check: Waiting → Pause reads its run ' +
				"back with the step's own credential (API key or anonymous ID) and takes it, with a warning on the output; " +
				'the trigger does the same only with a Media Generation API credential (an API key) attached to it, and ' +
				'otherwise refuses the delivery. The trigger therefore never takes runs made with an anonymous ID.',
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
