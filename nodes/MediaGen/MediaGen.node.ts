import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as accountGet from './actions/account/get.operation';
import * as appGetMany from './actions/app/getMany.operation';
import * as appRunLook from './actions/app/runLook.operation';
import * as fileUpload from './actions/file/upload.operation';
import * as generationGenerate from './actions/generation/generate.operation';
import * as generationGet from './actions/generation/get.operation';
import * as generationGetMany from './actions/generation/getMany.operation';
import * as generationWait from './actions/generation/wait.operation';
import * as modelGetMany from './actions/model/getMany.operation';
import { router } from './actions/router';
import { getAppSlots, getLooks, getModelOptionFields, getMusicModes, searchApps, searchModels } from './methods';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Generation',
		name: 'mediaGen',
		icon: { light: 'file:mediagen.svg', dark: 'file:mediagen.dark.svg' },
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
					{ name: 'Anonymous (Free Tier)', value: 'anonymous', description: 'No account: the free house image engine only, 5 credits, watermarked' },
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
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['generation'] } },
				options: [
					{ name: 'Generate', value: 'generate', action: 'Generate an image video or song', description: 'Start a run, wait for it and return the files' },
					{ name: 'Get', value: 'get', action: 'Get a run', description: 'Read one run by ID, with its files' },
					{ name: 'Get Many', value: 'getMany', action: 'Get many runs', description: 'List your runs, newest first' },
					{ name: 'Wait', value: 'wait', action: 'Wait for a run to finish', description: 'Wait for a run started earlier and return its files' },
				],
				default: 'generate',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['app'] } },
				options: [
					{ name: 'Get Many', value: 'getMany', action: 'Get many apps', description: 'List the ready-made apps and their looks' },
					{ name: 'Run Look', value: 'runLook', action: 'Run an app look', description: 'Run a preset look of an app on your photos' },
				],
				default: 'runLook',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['file'] } },
				options: [{ name: 'Upload', value: 'upload', action: 'Upload a file', description: 'Upload a reference image or audio and get its URL' }],
				default: 'upload',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['account'] } },
				options: [{ name: 'Get', value: 'get', action: 'Get the account', description: 'Credits left, tier, concurrency' }],
				default: 'get',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['model'] } },
				options: [{ name: 'Get Many', value: 'getMany', action: 'Get many models', description: 'List the model catalogue' }],
				default: 'getMany',
			},
			...generationGenerate.description,
			...generationGet.description,
			...generationGetMany.description,
			...appGetMany.description,
			...appRunLook.description,
			...generationWait.description,
			...fileUpload.description,
			...accountGet.description,
			...modelGetMany.description,
		],
	};

	methods = {
		listSearch: { searchModels, searchApps },
		loadOptions: { getMusicModes, getLooks, getAppSlots },
		resourceMapping: { getModelOptionFields },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
