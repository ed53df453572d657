// What a paused Generate or Run Look step records before it lets go of the execution, and the pieces
// both sides share. n8n saves the node's context data with the waiting execution; the resume
// webhook reads it back (a webhook call itself can save nothing, so every call works from this record
// plus what the service says). Pure: no n8n calls.
import type { IDataObject } from 'n8n-workflow';

import type { Refusal } from '../run/runErrors';

export const PAUSE_STATE_KEY = 'mediaGenPause';

/** The query parameter on each run's webhook URL that says which prepared item the run belongs to. */
export const ITEM_PARAM = 'mgItem';

export interface PausedItem {
	/** The input item. */
	item: number;
	/** The complete request (files already uploaded), with its request key. */
	body: IDataObject;
	/** Set for the runs submitted before pausing. */
	runId?: string;
	/** The service's createdAt of that run. */
	createdAt?: number;
	/** The credits the service charged for that run (its `cost`). */
	cost?: number;
	/** Under a spending cap: the price predicted for this item before the pause (pauseCap.ts). */
	price?: number;
	/** A submission the service refused before pausing (the item's outcome). */
	refused?: Refusal;
	download: boolean;
	binaryProperty: string;
	extraJson?: IDataObject;
}

/** Max Credits per Execution as the batch saw it at the pause (checked on real costs by pauseCap.ts). */
export interface PauseCap {
	limit: number;
	/** Credits this step had already spent in this execution (earlier passes) when the batch was planned. */
	spentBefore: number;
}

export interface PauseState {
	version: 1;
	/** Names this paused batch in the resume calls' memory (absent in batches paused by older versions). */
	batchId?: string;
	/**
	 * Runs in flight at once (the account's concurrency): items are sent in input order as slots free up. The name
	 * predates the pool; it stays because waiting executions saved by earlier versions hold it.
	 */
	lanes: number;
	/** Epoch ms: a delivery after this with runs unfinished resumes with those marked as timed out. */
	deadline: number;
	/** Epoch ms the batch paused (names batches recorded before batchId existed). */
	pausedAt: number;
	continueOnFail: boolean;
	/** Max Credits per Execution, when set (absent in batches paused by older versions: not checked again). */
	cap?: PauseCap;
	items: PausedItem[];
	/** Items refused while being read and checked (Continue On Fail): error items, in input order. */
	invalid: Array<{ item: number; message: string; description?: string }>;
}

/** The key of a batch in the resume calls' memory: its own ID, or (older records) the execution and node. */
export function batchKeyOf(state: PauseState, executionId: string, nodeName: string): string {
	return state.batchId ?? `${executionId}|${nodeName}|${state.pausedAt}`;
}

/** The webhook URL for one item's run: the execution's resume URL, marked with the item's position. */
export function itemWebhookUrl(resumeUrl: string, position: number): string {
	const url = new URL(resumeUrl);
	url.searchParams.set(ITEM_PARAM, String(position));
	return url.toString();
}

/** The position a delivery's URL names, if it is a whole number within the batch. */
export function positionFromQuery(query: unknown, state: PauseState): number | undefined {
	const raw = (query as Record<string, unknown> | undefined)?.[ITEM_PARAM];
	const value = Number(Array.isArray(raw) ? raw[0] : raw);
	return Number.isInteger(value) && value >= 0 && value < state.items.length ? value : undefined;
}

export function isPauseState(value: unknown): value is PauseState {
	const s = value as PauseState;
	return (
		!!s &&
		typeof s === 'object' &&
		s.version === 1 &&
		Array.isArray(s.items) &&
		Number.isInteger(s.lanes) &&
		s.lanes > 0 &&
		typeof s.pausedAt === 'number'
	);
}
