// File: upload reference images and audio.
import type { INodeProperties } from 'n8n-workflow';

import { operationFields } from '../operation';
import * as upload from './upload.operation';

export const operations = { upload };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['file'] } },
		options: [
			{
				name: 'Upload',
				value: 'upload',
				action: 'Upload a file',
				description: 'Upload a reference image or audio and get its URL',
			},
		],
		default: 'upload',
	},
	...operationFields('file', operations),
];
