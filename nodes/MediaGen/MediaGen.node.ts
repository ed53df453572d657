// The Media Generation node: its resources and their operations (each resource's index.ts owns its
// Operation dropdown), the catalogue-driven dropdowns, execute() handing off to the router, and the
// resume webhook of pause mode.
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { checkSigningSecret, MEDIAGEN_ICON } from '../../credentials/common';
import { resources, router } from './actions/router';
import { listSearch, loadOptions, resourceMapping } from './methods';
import { resumeWebhook } from './resume/resumeWebhook';
import { resumeWebhooks } from './resume/webhooks';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Generation',
		name: 'mediaGen',
		icon: MEDIAGEN_ICON,
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Generate images, video and songs with the Media Generation API, and get the files back',
		defaults: { name: 'Media Generation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'mediaGenApi', required: true, displayOptions: { show: { authentication: ['apiKey'] } } },
			{ name: 'mediaGenAnonymousApi', required: true, displayOptions: { show: { authentication: ['anonymous'] } } },
			// Pause mode checks with it that each call back really comes from the service.
			{
				name: 'mediaGenWebhookApi',
				required: true,
				testedBy: 'checkSigningSecret',
				displayOptions: { show: { waitMode: ['pause'] } },
			},
		],
		webhooks: resumeWebhooks,
		properties: [
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{ name: 'API Key', value: 'apiKey', description: 'Billed to your account; every model; clean files' },
					{
						name: 'Anonymous (Free Tier)',
						value: 'anonymous',
						description: 'No account: the free house image engine only, 5 credits, watermarked',
					},
				],
				default: 'apiKey',
			},
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'App', value: 'app' },
					{ name: 'File', value: 'file' },
					{ name: 'Generation', value: 'generation' },
					{ name: 'Model', value: 'model' },
				],
				default: 'generation',
			},
			...resources.generation.description,
			...resources.app.description,
			...resources.file.description,
			...resources.account.description,
			...resources.model.description,
		],
	};

	methods = { listSearch, loadOptions, resourceMapping, credentialTest: { checkSigningSecret } };

	execute = router;

	/** Pause mode: the service's deliveries to the execution's resume URL. */
	webhook = resumeWebhook;
}
