// Generation → Get: one run by id (reading settles it with the provider), with its files.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { readRunId } from '../../../shared/fields';
import { runToItem } from '../../run/runOutput';
import { readRunSettings } from '../../run/runSettings';
import { getRun } from '../../run/waitForRun';
import { downloadOutputsFields, runIdField, waitingCollection } from '../descriptions';

export const properties: INodeProperties[] = [
	runIdField,
	...downloadOutputsFields('Whether to download the files of a finished run into the item as binary data'),
	waitingCollection(['binaryProperty', 'requestTimeoutSeconds']),
];

export const itemsAtOnce = 'runs';

export async function executeItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const runId = readRunId(this, i);
	const settings = { ...readRunSettings(this, i), wait: false };
	settings.download = this.getNodeParameter('downloadOutputs', i, true) as boolean;
	const run = await getRun(this, runId, i, settings.requestTimeoutMs);
	// A failed run is what was asked for here, not an error: it comes back with its refund.
	if (run.status === 'FAILED' || run.status === 'CANCELED') {
		const refunded = run.status === 'FAILED' ? (run.refunded ?? run.cost) : run.refunded;
		return [{ json: { ...run, ...(refunded === undefined ? {} : { refunded }) }, pairedItem: { item: i } }];
	}
	return [await runToItem(this, run, settings, i)];
}
