// Generation → Wait: waits for an existing run to finish (same polling and outputs as Generate).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Identity } from '../../transport';
import { readRunId } from '../../helpers/fields';
import { finishedRunToItem } from '../../helpers/runOutput';
import { readRunSettings } from '../../helpers/runSettings';
import { getRun, waitForRun } from '../../helpers/waitForRun';
import { downloadOutputsField, runIdField, waitingCollection } from '../descriptions';

const properties: INodeProperties[] = [
	runIdField,
	downloadOutputsField('Whether to download the finished files into the item as binary data'),
	waitingCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['generation'], operation: ['wait'] } },
	properties,
);

export const itemsAtOnce = 'runs';

export async function executeItem(
	this: IExecuteFunctions,
	i: number,
	identity: Identity,
): Promise<INodeExecutionData[]> {
	const settings = { ...readRunSettings(this, i), wait: true };
	settings.download = this.getNodeParameter('downloadOutputs', i, true) as boolean;
	const first = await getRun(this, identity, readRunId(this, i), i, settings.requestTimeoutMs);
	const run = await waitForRun(this, identity, first, settings, i);
	return [await finishedRunToItem(this, run, settings, i)];
}
