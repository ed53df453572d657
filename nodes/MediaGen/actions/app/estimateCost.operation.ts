// App → Estimate Cost: Run Look's fields, each item read and checked by Run Look's own preparation, priced by the
// price book (cost/priceBook.ts), and nothing submitted (batch/estimateBatch.ts).
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { estimateBatch, summaryField } from '../../batch/estimateBatch';
import { prepare, runLookFields } from './runLook.operation';

export const description = updateDisplayOptions({ show: { resource: ['app'], operation: ['estimateCost'] } }, [
	...runLookFields,
	summaryField,
]);

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await estimateBatch(this, async (i) => await prepare(this, i));
}
