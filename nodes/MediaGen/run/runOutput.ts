// A run as an output item (its files as binary data), and a step's output: input order, the same columns, the error
// output's shape, execution hints; without Continue On Fail its first failure, naming the runs already paid for.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	NodeExecutionHint,
} from 'n8n-workflow';

import { downloadOutputs } from '../../shared/downloads';
import { FINAL_STATUSES, runJson, type RunRecord } from '../../shared/records';
import { NOTHING_CHARGED } from '../../shared/transport';
import type { BatchKeys } from './requestKey';
import type { LedgerItem } from './ledger';
import { failedRunError, paidRunsOf, runError, withPaidRuns } from './runErrors';
import type { RunSettings } from './runSettings';
import { CAP_CODE } from './spendingCap';
import { TIME_LIMIT_CODE } from './timeLimit';
import { isToolCall } from './toolCall';

/** A run, finished or not, as the item of `itemIndex`; a failed or canceled run is thrown as its error. */
export async function runToItem(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	settings: Pick<RunSettings, 'download' | 'binaryProperty'>,
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
			throw runError(
				ctx,
				run,
				`Run ${run.id} succeeded, but downloading its files failed: ${(error as Error).message}`,
				`The files stay available at their URLs (in "outputs"). Run Generation → Get with run ID ` +
					`${run.id} to download them again (${NOTHING_CHARGED} for the download).`,
				itemIndex,
				requestKey,
			);
		}
	}
	if (!FINAL_STATUSES.includes(run.status))
		json.note = 'Not waited for: use Generation → Wait or the Media Generation Trigger to get the result.';
	return item;
}

/**
 * Under On Error → "Continue (using error output)", each failed item in the shape n8n sends to the error output: n8n
 * routes an item there only when `error` and `message` are its only fields (n8n-core's handleNodeErrorOutput).
 */
export function withErrorOutput(
	ctx: IExecuteFunctions | IWebhookFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[] {
	if (ctx.getNode().onError !== 'continueErrorOutput') return items;
	return items.map((item) => {
		const { error, description } = item.json;
		if (typeof error !== 'string' || !error) return item;
		return { json: { error, message: description || error }, pairedItem: item.pairedItem };
	});
}

export function isErrorOutputItem(json: IDataObject): boolean {
	return Boolean(json.error) && Object.keys(json).every((key) => key === 'error' || key === 'message');
}

/** Every item with every field (null where missing): n8n's Table view shows a red "undefined" in such a cell. */
export function withSameColumns(items: INodeExecutionData[]): INodeExecutionData[] {
	const columns = new Set(items.flatMap((item) => Object.keys(item.json)));
	for (const item of items) for (const key of columns) if (!(key in item.json)) item.json[key] = null;
	return items;
}

/** `byItem`: input index to item. */
export function itemsInInputOrder(byItem: Map<number, INodeExecutionData>): INodeExecutionData[] {
	return withSameColumns([...byItem.keys()].sort((a, b) => a - b).map((i) => byItem.get(i)!));
}

/**
 * A batch's first failure, its item named as people count (from 1), in `context.item` and the description: n8n's
 * error panel would add "[item N]" counted from 0 for `context.itemIndex`, beside the note's items counted from 1.
 */
function namedAsCounted<E>(error: E, batch: BatchKeys): E {
	const e = error as { description?: string | null; context?: IDataObject };
	const index = e?.context?.itemIndex;
	if (batch.inputCount <= 1 || typeof index !== 'number') return error;
	delete e.context!.itemIndex;
	e.context!.item = index + 1;
	e.description = `Item ${index + 1} of ${batch.inputCount}.${e.description ? ` ${e.description}` : ''}`;
	return error;
}

/** The step's items from their ledger entries, each with its output or error. `addHints`: none in a resume call. */
export function stepOutput(
	ctx: IExecuteFunctions | IWebhookFunctions,
	results: LedgerItem[],
	how: { continueOnFail: boolean; batch: BatchKeys; addHints?: (hints: NodeExecutionHint[]) => void },
): INodeExecutionData[] {
	const failed = results.filter((r) => r.error).sort((a, b) => a.itemIndex - b.itemIndex)[0];
	if (failed && !how.continueOnFail) {
		const others = results.filter((r) => r !== failed);
		const notStarted = others.filter((r) => !r.output && !r.error).map((r) => r.itemIndex);
		throw withPaidRuns(namedAsCounted(failed.error, how.batch), paidRunsOf(others), notStarted, how.batch);
	}
	const byItem = new Map(results.flatMap((r) => (r.output ? [[r.itemIndex, r.output] as const] : [])));
	const output = itemsInInputOrder(byItem);
	const hints = outcomeHints(output);
	if (hints.length) how.addHints?.(hints);
	return withErrorOutput(ctx, output);
}

/** "items 1, 3 and 4" (input positions counted from 1, as n8n's panels count them). */
function itemList(positions: number[]): string {
	const named = positions.map((p) => String(p + 1));
	const last = named.pop();
	return `item${named.length ? 's' : ''} ${named.length ? `${named.join(', ')} and ${last}` : last}`;
}

const warning = (message: string): NodeExecutionHint => ({ message, type: 'warning', location: 'outputPane' });

/** What a user should notice without opening an item, as execution hints: time limits passed, cap refusals. */
export function outcomeHints(items: INodeExecutionData[]): NodeExecutionHint[] {
	const late: number[] = [];
	const unsent: number[] = [];
	const capped: number[] = [];
	for (const [position, { json }] of items.entries()) {
		if (json.errorCode === TIME_LIMIT_CODE) (json.runId ? late : unsent).push(position);
		else if (json.errorCode === CAP_CODE) capped.push(position);
	}
	const hints: NodeExecutionHint[] = [];
	if (late.length) {
		const ids = late.map((p) => items[p].json.runId).join(', ');
		const one = late.length === 1;
		hints.push(
			warning(
				`Time limit: the run${one ? '' : 's'} of ${itemList(late)} (${ids}) did not finish in time. ` +
					`${one ? 'It keeps' : 'They keep'} going on the service and ${one ? 'is' : 'are'} charged (a run that ` +
					`fails is refunded); pick ${one ? 'it' : 'them'} up with Generation → Wait.`,
			),
		);
	}
	if (unsent.length) {
		const them = unsent.length === 1 ? 'it' : 'them';
		hints.push(
			warning(`Time limit: ${itemList(unsent)} could not be sent in time, so ${NOTHING_CHARGED} for ${them}.`),
		);
	}
	if (capped.length) hints.push(capRefusalHint(capped));
	return hints;
}

/** `capped`: input positions. */
export function capRefusalHint(capped: number[]): NodeExecutionHint {
	return warning(
		`Max Credits per Execution refused ${itemList(capped)}: not submitted, so ${NOTHING_CHARGED} for ` +
			`${capped.length === 1 ? 'it' : 'them'}. Raise the cap or split the batch.`,
	);
}
