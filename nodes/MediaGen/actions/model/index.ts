// Model: the model catalogue.
import type { INodeProperties } from 'n8n-workflow';

import { operationFields } from '../operation';
import * as getMany from './getMany.operation';

export const operations = { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['model'] } },
		options: [
			{ name: 'Get Many', value: 'getMany', action: 'Get many models', description: 'List the model catalogue' },
		],
		default: 'getMany',
	},
	...operationFields('model', operations),
];
