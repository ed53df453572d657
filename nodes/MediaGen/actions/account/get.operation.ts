// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { identityProblem } from '../../../shared/responseChecks';
import type { ItemExecutor } from '../operation';

export const description: INodeProperties[] = [];

export const executeItem: ItemExecutor = async function (i) {
	const res = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: '/me',
		retryTransient: 2,
		itemIndex: i,
		expect: identityProblem,
	});
	return [{ json: res.body, pairedItem: { item: i } }];
};
