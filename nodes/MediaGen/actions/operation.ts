// What an operation file exports, so the router can run it without knowing it.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** The router loops over the items (up to `itemsAtOnce` in flight) and catches per item. */
export interface ItemOperation {
	description: INodeProperties[];
	/** How many items at once: a number, or 'runs' for as many as the account may have runs in flight. */
	itemsAtOnce?: number | 'runs';
	executeItem: ItemExecutor;
}

/** One item's work: the items it outputs (usually one, paired to `itemIndex`). */
export type ItemExecutor = (this: IExecuteFunctions, itemIndex: number) => Promise<INodeExecutionData[]>;

/**
 * The operation takes all items together: the batch path of run-producing operations, which checks
 * every item before spending and catches per item itself.
 */
interface AllItemsOperation {
	description: INodeProperties[];
	executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
	/** True for operations that start paid runs (Generate, Run Look): a tool call's answer then says the credits left. */
	startsRuns?: boolean;
}

export type Operation = ItemOperation | AllItemsOperation;
