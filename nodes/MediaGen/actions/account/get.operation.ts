// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { apiRequest, type Identity } from '../../transport';
import { identityProblem } from '../../transport/answers';

export const description: INodeProperties[] = [];

export async function executeItem(
	this: IExecuteFunctions,
	i: number,
	identity: Identity,
): Promise<INodeExecutionData[]> {
	const res = await apiRequest<IDataObject>(
		this,
		{ method: 'GET', path: '/me', retryTransient: 2, itemIndex: i, expect: identityProblem },
		identity,
	);
	return [{ json: res.body, pairedItem: { item: i } }];
}
