// Routes resource + operation to its operation file, catching per item (Continue On Fail) or, for all-items operations,
// turning an error that stops the batch into one error item. As an AI tool, the items become the agent's answer.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { identityOf } from '../../shared/transport';
import { runPool } from '../batch/pool';
import { concurrencyOf } from '../run/concurrency';
import { errorItem } from '../run/runErrors';
import { isToolCall } from '../run/toolCall';
import { answerToolCall } from '../tool/toolResult';
import * as account from './account';
import * as app from './app';
import * as file from './file';
import * as generation from './generation';
import * as model from './model';
import type { ItemOperation, Operation } from './operation';

export const resources = { account, app, file, generation, model };

async function eachItem(ctx: IExecuteFunctions, op: ItemOperation): Promise<INodeExecutionData[]> {
	const count = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	const width = op.itemsAtOnce === 'runs' ? await concurrencyOf(ctx, count) : (op.itemsAtOnce ?? 1);
	// Without Continue On Fail no new item starts after a failure; items in flight finish.
	const results = await runPool(count, width, async (i) => await op.executeItem.call(ctx, i), !continueOnFail);
	const out: INodeExecutionData[] = [];
	for (const [i, r] of results.entries()) {
		if (!r) continue;
		if (r.ok) out.push(...r.value);
		else if (continueOnFail) out.push(errorItem(r.error, i));
		else throw r.error;
	}
	return out;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const operations: Record<string, Operation> | undefined = resources[resource as keyof typeof resources]?.operations;
	const op = operations?.[operation];
	if (!op) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	// A malformed credential stops the step here, before any item is processed.
	await identityOf(this);
	const run = async () => await runOperation(this, op);
	if (!isToolCall(this)) return [await run()];
	return [await answerToolCall(this, 'startsRuns' in op && op.startsRuns === true, run)];
}

async function runOperation(ctx: IExecuteFunctions, op: Operation): Promise<INodeExecutionData[]> {
	if ('executeItem' in op) return await eachItem(ctx, op);
	// A batch stopped as a whole: with Continue On Fail the error becomes the output.
	return await op.executeAll.call(ctx).catch(async (error: unknown) => {
		if (!ctx.continueOnFail()) return await Promise.reject(error);
		return [errorItem(error, 0)];
	});
}
