// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import type { INodeProperties } from 'n8n-workflow';

import { readAccount } from '../../run/concurrency';
import type { ItemExecutor } from '../operation';

export const description: INodeProperties[] = [];

export const executeItem: ItemExecutor = async function (i) {
	return [{ json: await readAccount(this, i), pairedItem: { item: i } }];
};
