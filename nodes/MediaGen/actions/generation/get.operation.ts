// Generation → Get: one run by id (reading settles it with the provider), with its files.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getIdentity } from '../../transport';
import { executeBatch } from '../../helpers/executeBatch';
import { finishedRunToItem } from '../../helpers/runOutput';
import { readRunSettings, waitingCollection } from '../../helpers/runSettings';
import { getRun } from '../../helpers/waitForRun';

const show = { resource: ['generation'], operation: ['get'] };

export const runIdField = (operation: string): INodeProperties => ({
	displayName: 'Run ID',
	name: 'runId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. gen_0123456789abcdef',
	displayOptions: { show: { resource: ['generation'], operation: [operation] } },
	description: 'The ID of a run started with this account, for example the ID from a Generate result (drag it in as an expression)',
});

export const description: INodeProperties[] = [
	runIdField('get'),
	{
		displayName: 'Download Outputs',
		name: 'downloadOutputs',
		type: 'boolean',
		default: true,
		displayOptions: { show },
		description: 'Whether to download the files of a finished run into the item as binary data',
	},
	waitingCollection(show, ['binaryProperty', 'requestTimeoutSeconds']),
];

export function readRunId(ctx: IExecuteFunctions, itemIndex: number): string {
	const runId = String(ctx.getNodeParameter('runId', itemIndex, '') ?? '').trim();
	if (!runId) throw new NodeOperationError(ctx.getNode(), 'Run ID is empty', { description: 'Enter the ID of a run, for example {{ $json.id }} from a Generate step.', itemIndex });
	return runId;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const identity = await getIdentity(this);
	return await executeBatch(this, identity, async (i) => {
		const runId = readRunId(this, i);
		const settings = { ...readRunSettings(this, i), wait: false };
		settings.download = this.getNodeParameter('downloadOutputs', i, true) as boolean;
		const run = await getRun(this, identity, runId, i, settings.requestTimeoutMs);
		if (run.status === 'FAILED' || run.status === 'CANCELED') {
			return { json: { ...run, refunded: run.refunded ?? run.cost }, pairedItem: { item: i } };
		}
		return await finishedRunToItem(this, run, settings, i);
	});
}
