// The Media Generation node: its resources and their operations (each resource's index.ts owns its
// Operation dropdown), the catalogue-driven dropdowns, and execute() handing off to the router.
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MEDIAGEN_ICON } from '../../credentials/common';
import { resources, router } from './actions/router';
import { listSearch, loadOptions, resourceMapping } from './methods';

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
		],
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

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
