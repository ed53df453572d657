// Account: credits, tier and concurrency.
import type { INodeProperties } from 'n8n-workflow';

import { operationFields } from '../operation';
import * as get from './get.operation';

export const operations = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get the account',
				description: 'Credits left, tier and how many runs can go at once',
			},
		],
		default: 'get',
	},
	...operationFields('account', operations),
];
