// A run record as an output item: the record, the request key, and the files as binary data.
// A failed run becomes an error carrying its id and refund; a failed download names the run.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadOutputs } from '../../shared/downloads';
import { FINAL_STATUSES, runJson, type RunRecord } from '../../shared/records';
import { addRunDetails, detailsOfRun, failedRunError } from './runErrors';
import { isToolCall } from './toolCall';

export interface OutputSettings {
	download: boolean;
	binaryProperty: string;
}

/** A run, finished or not, as the item of `itemIndex`; a failed or canceled run is thrown as its error. */
export async function runToItem(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	settings: OutputSettings,
	itemIndex: number,
	extra: IDataObject = {},
): Promise<INodeExecutionData> {
	const requestKey = typeof extra.requestKey === 'string' ? extra.requestKey : undefined;
	if (run.status === 'FAILED' || run.status === 'CANCELED') throw failedRunError(ctx, run, itemIndex, requestKey);
	const json: IDataObject = { ...(runJson(run) as IDataObject), ...extra };
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	// n8n drops binary data from a tool's answer (the agent gets the URLs instead), so a tool call downloads nothing.
	if (settings.download && !isToolCall(ctx) && run.status === 'SUCCEEDED' && run.outputs?.length) {
		try {
			const files = await downloadOutputs(ctx, run, settings.binaryProperty);
			item.binary = files.binary;
			json.files = files.files as unknown as IDataObject[];
		} catch (error) {
			const failure = new NodeOperationError(
				ctx.getNode(),
				`Run ${run.id} succeeded, but downloading its files failed: ${(error as Error).message}`,
				{
					description:
						`The files stay available at their URLs (in "outputs"). Run Generation → Get with run ID ` +
						`${run.id} to download them again; nothing more is charged.`,
					itemIndex,
				},
			);
			throw addRunDetails(failure, detailsOfRun(run, requestKey));
		}
	}
	if (!FINAL_STATUSES.includes(run.status)) {
		json.note = 'Not waited for: use Generation → Wait or the Media Generation Trigger to get the result.';
	}
	return item;
}

/**
 * Gives every item of one output the same top-level fields, null where an item has none. n8n's Table view
 * shows a red "undefined" in a cell whose field only other items have: a failed item (Continue On Fail) lacks
 * a run's cost or status, and its `description` is a field no run has. Field order: first seen, item by item.
 */
export function withSameColumns(items: INodeExecutionData[]): INodeExecutionData[] {
	if (items.length < 2) return items;
	const columns = new Set<string>();
	for (const item of items) for (const key of Object.keys(item.json)) columns.add(key);
	for (const item of items) for (const key of columns) if (!(key in item.json)) item.json[key] = null;
	return items;
}

/** A batch's output: its items in input order, with the same columns (`byItem` maps input index to item). */
export function itemsInInputOrder(byItem: Map<number, INodeExecutionData>): INodeExecutionData[] {
	return withSameColumns([...byItem.keys()].sort((a, b) => a - b).map((i) => byItem.get(i)!));
}
