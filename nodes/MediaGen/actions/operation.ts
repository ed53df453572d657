// What an operation file exports, so the router can run it and its resource's index can show its fields.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

/**
 * The router loops over the items (up to `itemsAtOnce` in flight) and catches per item. List operations too run once
 * per input item, as n8n's own do, each result paired with that item.
 */
export interface ItemOperation {
	properties?: INodeProperties[];
	/** How many items at once: a number, or 'runs' for as many as the account may have runs in flight. */
	itemsAtOnce?: number | 'runs';
	/** One item's work: the items it outputs (usually one, paired to `itemIndex`). */
	executeItem(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]>;
}

/** All items at once: run-producing operations check every item before spending, and catch per item themselves. */
interface AllItemsOperation {
	properties: INodeProperties[];
	executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
	/** True for operations that start paid runs (Generate, Run Look): a tool call's answer then says the credits left. */
	startsRuns?: boolean;
}

export type Operation = ItemOperation | AllItemsOperation;

/**
 * Each operation's fields, shown for that operation only. The Operation dropdown itself stays a literal in each
 * resource's index.ts, where n8n-node lint checks its options (an option built here would escape the lint).
 */
export function operationFields(resource: string, operations: Record<string, Operation>): INodeProperties[] {
	return Object.entries(operations).flatMap(([operation, op]) =>
		updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, op.properties ?? []),
	);
}
