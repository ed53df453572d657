// App: the ready-made apps and their looks, and running a look on your photos.
import type { INodeProperties } from 'n8n-workflow';

import { operationFields } from '../operation';
import * as estimateCost from './estimateCost.operation';
import * as getMany from './getMany.operation';
import * as runLook from './runLook.operation';

export const operations = { estimateCost, getMany, runLook };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['app'] } },
		options: [
			{
				name: 'Estimate Cost',
				value: 'estimateCost',
				action: 'Estimate the cost of app looks',
				description:
					'Free: price each look run before running it (same fields and checks as Run Look, nothing sent), with ' +
					'the total, the credits left and whether they are enough',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many apps',
				description: 'List the ready-made apps and their looks',
			},
			{
				name: 'Run Look',
				value: 'runLook',
				action: 'Run an app look',
				description: 'Run a preset look of an app on your photos (costs credits) and return the files',
			},
		],
		default: 'runLook',
	},
	...operationFields('app', operations),
];
