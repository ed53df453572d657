// A tool call's answer: per run the fields this package knows (not those the service adds later), credits left after
// runs started, and a run still going at the call's time limit as an answer with its id to fetch later.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { FINAL_STATUSES } from '../../shared/records';
import { readAccount } from '../run/concurrency';
import { runDetailsOf } from '../run/runErrors';
import { TIME_LIMIT_CODE } from '../run/timeLimit';

const OUTPUT_FIELDS = ['url', 'mime', 'title', 'lyrics', 'seconds', 'cover'] as const;
/** Fields the node itself adds to a run item (Run Look's app and look, pause mode's time-out mark). */
const ADDED_FIELDS = ['requestKey', 'app', 'look', 'timedOut', 'refunded'] as const;
const FETCH_LATER =
	'Still running on the service (already charged; refunded if it fails). Call the Generation Wait or Get ' +
	'tool with this runId in a minute to get the files; calling Generate again would start and charge a new run.';

function isRunRecord(json: IDataObject): boolean {
	return typeof json.id === 'string' && typeof json.status === 'string' && typeof json.kind === 'string';
}

function pick(source: IDataObject, keys: readonly string[]): IDataObject {
	const out: IDataObject = {};
	for (const key of keys) if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
	return out;
}

/** A run record (or a run item of the node) as the compact answer of a tool call. Pure. */
export function toolRunResult(json: IDataObject): IDataObject {
	const outputs = Array.isArray(json.outputs) ? (json.outputs as IDataObject[]) : [];
	const result: IDataObject = {
		runId: json.id,
		status: json.status,
		kind: json.kind,
		model: json.model,
		cost: json.cost,
		...pick(json, ADDED_FIELDS),
		outputs: outputs.map((o) => pick(o, OUTPUT_FIELDS)),
	};
	if (json.status === 'FAILED' && json.error) result.error = json.error;
	if (!FINAL_STATUSES.includes(String(json.status))) result.note = FETCH_LATER;
	return result;
}

/** A time-limit error as the answer: the run goes on, the caller fetches it later. Undefined for other errors. */
export function stillRunningResult(error: unknown): IDataObject | undefined {
	const details = runDetailsOf(error);
	if (details.errorCode !== TIME_LIMIT_CODE || !details.runId) return undefined;
	return { ...pick(details as IDataObject, ['runId', 'status', 'cost', 'requestKey']), note: FETCH_LATER };
}

async function creditsLeft(ctx: IExecuteFunctions): Promise<number | undefined> {
	// A nicety: the run's answer does not depend on it.
	const credits = (await readAccount(ctx, 0).catch(() => undefined))?.credits;
	return typeof credits === 'number' ? credits : undefined;
}

// The message with its description added: n8n's AI Agent (v3) hands a failed tool's message alone to the model
// (MCP clients add "Details:" only when the message lacks it).
function withDescription(error: unknown): unknown {
	const e = error as { message?: unknown; description?: unknown };
	if (typeof e?.message !== 'string' || typeof e.description !== 'string') return error;
	const description = e.description.trim();
	if (description && !e.message.includes(description)) e.message = `${e.message}\n${description}`;
	return error;
}

// A call refused before anything was sent (no request key, no run) as an answer, as n8n's HTTP Request tool answers:
// thrown, it would reach the model as an empty text (AI Agent v2) or end the execution (1.x's Agent v3). Other
// errors stay errors, so n8n's Retry On Fail still applies to them.
function refusalResult(error: unknown): IDataObject | undefined {
	const details = runDetailsOf(error);
	const message = (error as { message?: unknown })?.message;
	// Only what the node itself says charged nothing: an error naming other items' paid runs is no refusal.
	const paidRuns = (error as { context?: IDataObject })?.context?.paidRuns;
	if (details.runId || details.requestKey || paidRuns || typeof message !== 'string') return undefined;
	return { error: String((withDescription(error) as { message: string }).message), nothingCharged: true };
}

/** Runs the operation for a tool call and shapes its items; after runs started (`startsRuns`), the credits left. */
export async function answerToolCall(
	ctx: IExecuteFunctions,
	startsRuns: boolean,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[];
	try {
		items = await run();
	} catch (error) {
		const answer = refusalResult(error) ?? stillRunningResult(error);
		if (!answer) return await Promise.reject(withDescription(error)); // the operation's own error, whole
		items = [{ json: answer, pairedItem: { item: 0 } }];
	}
	const shaped = items.map((item) => ({
		json: isRunRecord(item.json) ? toolRunResult(item.json) : (stillRunningResult({ context: item.json }) ?? item.json),
		pairedItem: item.pairedItem ?? { item: 0 },
	}));
	if (startsRuns && shaped.some((item) => item.json.runId)) {
		const credits = await creditsLeft(ctx);
		if (credits !== undefined) for (const item of shaped) if (item.json.runId) item.json.creditsLeft = credits;
	}
	return shaped;
}
