// Account → Get: GET /me (tier, credits, watermark, concurrency; email where present).
import { readAccount } from '../../run/concurrency';
import type { ItemExecutor } from '../operation';

export const executeItem: ItemExecutor = async function (i) {
	return [{ json: await readAccount(this, i), pairedItem: { item: i } }];
};
