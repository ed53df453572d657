// Generation: start runs, read them, list them, wait for them. An operation's action is also the description an
// AI agent reads when n8n runs the node as a tool ("<action> in Media Generation"): it says what it costs and returns.
import type { INodeProperties } from 'n8n-workflow';

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
				// As an AI tool, n8n describes it to the agent as "<action> in Media Generation".
				action: 'Estimate the credit cost without generating',
				description:
					'Free: price each run before generating (same fields and checks as Generate, nothing sent), with the ' +
					'total, the credits left and whether they are enough',
			},
			{
				name: 'Generate',
				value: 'generate',
				// n8n's lint takes punctuation out of actions (sentence case), so no comma here.
				action: 'Generate an image or video or song for credits and return the run with its file links',
				description: 'Start a run, wait for it and return the files',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a run with its status and file links at no cost',
				description: 'Read one run by ID, with its files',
			},
			{ name: 'Get Many', value: 'getMany', action: 'Get many runs', description: 'List your runs, newest first' },
			{
				name: 'Wait',
				value: 'wait',
				action: 'Wait for a run to finish and return its file links at no cost',
				description: 'Wait for a run started earlier and return its files',
			},
		],
		default: 'generate',
	},
	...estimateCost.description,
	...generate.description,
	...get.description,
	...getMany.description,
	...wait.description,
];
