// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { apiRequest, getIdentity } from '../../transport';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const identity = await getIdentity(this);
	const out: INodeExecutionData[] = [];
	const items = this.getInputData();
	for (let i = 0; i < items.length; i++) {
		const res = await apiRequest<IDataObject>(this, { method: 'GET', path: '/me', retryTransient: 2, itemIndex: i }, identity).catch(
			(error: Error) => {
				if (!this.continueOnFail()) return Promise.reject(error);
				return { body: { error: error.message } as IDataObject };
			},
		);
		out.push({ json: res.body, pairedItem: { item: i } });
	}
	return out;
}
