// App → Estimate Cost: Run Look's fields, each item read and checked by Run Look's own preparation, priced by the
// price book (run/priceBook.ts), and nothing submitted (batch/estimateBatch.ts).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { estimateBatch, summaryField } from '../../batch/estimateBatch';
import { prepare, properties as runLookFields } from './runLook.operation';

export const properties = [...runLookFields, summaryField];

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await estimateBatch(this, async (i) => await prepare(this, i));
}
