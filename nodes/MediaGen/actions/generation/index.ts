// Generation: start, read, list and wait for runs. An action names a new node, heads the panel and error toasts and is
// the tool's default description: short, as n8n's own; the description says what the operation costs and returns.
import type { INodeProperties } from 'n8n-workflow';

import { operationFields } from '../operation';
import * as estimateCost from './estimateCost.operation';
import * as generate from './generate.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as wait from './wait.operation';

export const operations = { estimateCost, generate, get, getMany, wait };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['generation'] } },
		options: [
			{
				name: 'Estimate Cost',
				value: 'estimateCost',
				action: 'Estimate the cost of runs',
				description:
					'Free: price each run before generating (same fields and checks as Generate, nothing sent), with the ' +
					'total, the credits left and whether they are enough',
			},
			{
				name: 'Generate',
				value: 'generate',
				action: 'Generate media',
				description: 'Make an image, video or song from a prompt (costs credits), wait for it and return the files',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a run',
				description: 'Read one run by ID with its status and files (free)',
			},
			{ name: 'Get Many', value: 'getMany', action: 'Get many runs', description: 'List your runs, newest first' },
			{
				name: 'Wait',
				value: 'wait',
				action: 'Wait for a run',
				description: 'Wait for a run started earlier to finish and return its files (free)',
			},
		],
		default: 'generate',
	},
	...operationFields('generation', operations),
];
