// The Media Generation node: resources and operations (each resource's index.ts owns its Operation dropdown),
// catalogue-driven dropdowns, execute() through the router, and pause mode's resume webhook.
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MEDIAGEN_NODE_ICON } from '../shared/icon';
import { checkSigningSecret } from '../shared/signingSecret';
import { runSettingsFields } from './actions/descriptions';
import { resources, router } from './actions/router';
import { listSearch, loadOptions, resourceMapping } from './methods';
import { resumeWebhook, resumeWebhooks } from './pause/resumeWebhook';
import { toolDescriptionFields } from './tool/toolDescriptions';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Generation',
		name: 'mediaGen',
		icon: MEDIAGEN_NODE_ICON,
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
			{
				name: 'mediaGenWebhookApi',
				// n8n labels a box with its displayName; the trigger's box for the same credential says the same.
				displayName: 'Signing Secret',
				required: true,
				testedBy: 'checkSigningSecret',
				displayOptions: { show: { waitMode: ['pause'] } },
			},
		],
		webhooks: resumeWebhooks,
		properties: [
			// The tool variant only: what an AI agent reads about the tool, first as in n8n's own tools.
			...toolDescriptionFields,
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
			// Places the credential boxes here, at the top, as n8n's Notion node does. Without it n8n puts them beside
			// the last field a credential depends on, which for the pause-mode secret is Waiting, near the bottom.
			{ displayName: '', name: 'credentials', type: 'credentials', default: '' },
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
			// Waiting and outputs, shared by Generate and Run Look: after both operations' own fields.
			...runSettingsFields,
			...resources.file.description,
			...resources.account.description,
			...resources.model.description,
		],
	};

	methods = { listSearch, loadOptions, resourceMapping, credentialTest: { checkSigningSecret } };

	execute = router;

	webhook = resumeWebhook;
}
