// Generation → Wait: waits for an existing run to finish (same polling and outputs as Generate).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { readRunId } from '../../../shared/fields';
import { runToItem } from '../../run/runOutput';
import { readRunSettings } from '../../run/runSettings';
import { getRun, waitForRun } from '../../run/waitForRun';
import { downloadOutputsFields, runIdField, waitingCollection } from '../descriptions';

export const properties: INodeProperties[] = [
	runIdField,
	...downloadOutputsFields('Whether to download the finished files into the item as binary data'),
	waitingCollection(),
];

export const itemsAtOnce = 'runs';

export async function executeItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const settings = { ...readRunSettings(this, i), wait: true };
	settings.download = this.getNodeParameter('downloadOutputs', i, true) as boolean;
	const first = await getRun(this, readRunId(this, i), i, settings.requestTimeoutMs);
	const run = await waitForRun(this, first, settings, i);
	return [await runToItem(this, run, settings, i)];
}
