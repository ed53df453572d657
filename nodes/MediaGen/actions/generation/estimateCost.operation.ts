// Generation → Estimate Cost: Generate's fields, each item read and checked by Generate's own preparation, priced
// by the price book (run/priceBook.ts), and nothing submitted (batch/estimateBatch.ts).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { estimateBatch, summaryField } from '../../batch/estimateBatch';
import { prepare, properties as generateFields } from './generate.operation';

export const properties = [...generateFields, summaryField];

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await estimateBatch(this, async (i) => await prepare(this, i));
}
