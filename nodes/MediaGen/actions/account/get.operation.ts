// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readAccount } from '../../run/concurrency';

export async function executeItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	return [{ json: await readAccount(this, i), pairedItem: { item: i } }];
}
