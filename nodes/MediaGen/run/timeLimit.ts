// The time limit of a run-producing item, from its start (waiting for a slot included) to its output: the one place
// an item's deadline is set (itemDeadline; a paused batch's: batchDeadline).
import type { MediaKind } from '../../shared/records';

/** The spec's suggested client time-outs. */
const DEFAULT_TIMEOUT_MINUTES: Record<MediaKind, number> = { image: 3, video: 10, music: 5 };

/** A tool call's time limit when none is set: it answers before MCP clients give up on a call (60 s in the MCP SDK). */
export const TOOL_TIME_LIMIT_MS = 45_000;

/** The errorCode of a run still going when the time limit passed (a tool call answers with its run ID instead). */
export const TIME_LIMIT_CODE = 'time_limit';

export function timeLimitMs(kind: string, timeoutMs?: number): number {
	return timeoutMs || (DEFAULT_TIMEOUT_MINUTES[kind as MediaKind] ?? 10) * 60_000;
}

export function itemDeadline(kind: string, timeoutMs?: number): number {
	return Date.now() + timeLimitMs(kind, timeoutMs);
}

/**
 * Epoch ms a pause-mode batch starting now must be done by. Left at 0, an item gets the suggested limit for each
 * round of runs the batch needs on `lanes` slots (300 images on 2 slots: 150 × 3 minutes, not 3 minutes for all).
 */
export function batchDeadline(items: Array<{ kind: string; timeoutMs?: number }>, lanes: number): number {
	const rounds = Math.ceil(items.length / lanes);
	return Date.now() + Math.max(...items.map((i) => i.timeoutMs || rounds * timeLimitMs(i.kind)));
}
