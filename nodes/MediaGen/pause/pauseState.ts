// What a paused step records before it lets go of the execution: n8n saves the node's context data with the waiting
// execution, and a webhook call can save nothing, so each resume call works from this record and the service. Pure.
import type { IDataObject } from 'n8n-workflow';

import type { BatchKeys } from '../run/requestKey';
import type { Refusal } from '../run/runErrors';

export const PAUSE_STATE_KEY = 'mediaGenPause';

/** The query parameter on each run's webhook URL naming the item's position in the batch. */
const ITEM_PARAM = 'mgItem';

interface PausedItem {
	item: number;
	/** The request (files already uploaded), with its request key as sent; its webhook URL only in older records. */
	body: IDataObject;
	/** The key the item started with, when its run came back failed (refunded) and it moved on to -r`attempt`. */
	firstKey?: string;
	attempt?: number;
	/** The run submitted before the pause: its ID, the service's createdAt and the credits charged (`cost`). */
	runId?: string;
	createdAt?: number;
	cost?: number;
	/** Its key brought back a run an earlier execution made (charged then): it costs this step nothing. */
	earlier?: boolean;
	/** Under a spending cap: the price predicted before the pause (pauseCap.ts). */
	price?: number;
	/** A submission refused before the pause (the item's outcome). */
	refused?: Refusal;
	/** Sent before the pause and no answer told what its key made: the run may have been made and charged. */
	lost?: true;
	download: boolean;
	binaryProperty: string;
	extraJson?: IDataObject;
}

export interface PauseState {
	version: 1;
	/** Names the batch in the resume calls' memory (absent in batches paused by older versions). */
	batchId?: string;
	/** Runs in flight at once (the account's concurrency); named before the pool, as saved executions hold it. */
	lanes: number;
	/** Epoch ms: the time limit. */
	deadline: number;
	/** The execution's resume URL, kept once (absent in older records): a run's webhook URL is it plus the position. */
	resumeUrl?: string;
	pausedAt: number;
	continueOnFail: boolean;
	/** Max Credits per Execution, and what the step had spent before the batch (absent: no cap, or older versions). */
	cap?: { limit: number; spentBefore: number };
	items: PausedItem[];
	/** Items refused while being read and checked (Continue On Fail): error items, in input order. */
	invalid: Array<{ item: number } & Refusal>;
}

/** The batch's request keys as its items were saved with them, for the advice to send them again. */
export function batchKeysOf(state: PauseState): BatchKeys {
	const items = state.items.map((i) => ({ itemIndex: i.item, key: String(i.body.requestKey) }));
	return { inputCount: state.items.length + state.invalid.length, items };
}

export function itemWebhookUrl(resumeUrl: string, position: number): string {
	const url = new URL(resumeUrl);
	url.searchParams.set(ITEM_PARAM, String(position));
	return url.toString();
}

/** An item's POST body: as recorded, with its webhook URL (older records hold it in the body). */
export function requestBodyOf(state: PauseState, position: number): IDataObject {
	const { body } = state.items[position];
	return state.resumeUrl ? { ...body, webhookUrl: itemWebhookUrl(state.resumeUrl, position) } : body;
}

export function positionFromQuery(query: unknown, state: PauseState): number | undefined {
	const raw = (query as Record<string, unknown> | undefined)?.[ITEM_PARAM];
	const value = Number(Array.isArray(raw) ? raw[0] : raw);
	return Number.isInteger(value) && value >= 0 && value < state.items.length ? value : undefined;
}

/** The record read back from the node's context: a JSON string, or an object (batches paused by older versions). */
export function pauseStateOf(saved: unknown): PauseState | undefined {
	let s: PauseState | undefined;
	try {
		s = (typeof saved === 'string' ? JSON.parse(saved) : saved) as PauseState | undefined;
	} catch {
		return undefined;
	}
	const valid = s?.version === 1 && Array.isArray(s.items) && Number.isInteger(s.lanes) && s.lanes > 0;
	return valid && typeof s?.pausedAt === 'number' ? s : undefined;
}
