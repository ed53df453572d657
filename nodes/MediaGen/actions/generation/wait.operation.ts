// Generation → Wait: waits for an existing run to finish (same polling and outputs as Generate).
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { getIdentity } from '../../transport';
import { executeBatch } from '../../helpers/executeBatch';
import { finishedRunToItem } from '../../helpers/runOutput';
import { readRunSettings, waitingCollection } from '../../helpers/runSettings';
import { getRun, waitForRun } from '../../helpers/waitForRun';
import { readRunId, runIdField } from './get.operation';

const show = { resource: ['generation'], operation: ['wait'] };

export const description: INodeProperties[] = [
	runIdField('wait'),
	{
		displayName: 'Download Outputs',
		name: 'downloadOutputs',
		type: 'boolean',
		default: true,
		displayOptions: { show },
		description: 'Whether to download the finished files into the item as binary data',
	},
	waitingCollection(show),
];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const identity = await getIdentity(this);
	return await executeBatch(this, identity, async (i) => {
		const settings = { ...readRunSettings(this, i), wait: true };
		settings.download = this.getNodeParameter('downloadOutputs', i, true) as boolean;
		const first = await getRun(this, identity, readRunId(this, i), i, settings.requestTimeoutMs);
		const run = await waitForRun(this, identity, first, settings, i);
		return await finishedRunToItem(this, run, settings, i);
	});
}
