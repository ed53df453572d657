// Accepted webhook-ids in the workflow's static data (the only store a webhook() reaches that outlives the process).
// n8n saves it only while marked changed, a mark 2.40 can drop once an execution starts: so the trigger answers first.
export const REMEMBER_MS = 48 * 3600 * 1000; // covers the retries: 1 + 5 + 30 min + 2 + 6 + 24 h ≈ 32.6 h
export const MAX_REMEMBERED = 10_000;

/** webhook-id → when it was first accepted (ms since the epoch). */
export type SeenIds = Record<string, number>;

/** Drops expired ids and, past the bound, the oldest ones. Mutates and returns `seen`. */
export function pruneSeen(seen: SeenIds, now: number): SeenIds {
	for (const [id, at] of Object.entries(seen)) if (now - at > REMEMBER_MS) delete seen[id];
	const ids = Object.keys(seen);
	if (ids.length > MAX_REMEMBERED)
		for (const id of ids.sort((a, b) => seen[a] - seen[b]).slice(0, ids.length - MAX_REMEMBERED)) delete seen[id];
	return seen;
}

/** True when the id was already accepted; otherwise records it. */
export function alreadySeen(seen: SeenIds, id: string, now: number): boolean {
	if (seen[id] !== undefined && now - seen[id] <= REMEMBER_MS) return true;
	seen[id] = now;
	pruneSeen(seen, now);
	return false;
}

/** Folds a stored copy (of any shape) into `memory`, earliest time first; true when the copy lacks an id of it. */
export function mergeSeen(memory: SeenIds, stored: unknown, now: number): boolean {
	const copy = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
	for (const [id, at] of Object.entries(copy)) {
		if (typeof at !== 'number' || !Number.isFinite(at)) continue;
		if (memory[id] === undefined || at < memory[id]) memory[id] = at;
	}
	pruneSeen(memory, now);
	return Object.keys(memory).some((id) => copy[id] === undefined);
}

// A save writes the whole copy, the last writer winning. So each process keeps its own memory, folded into the stored
// copy that every call reads first: each save carries the ids this process accepted, so one a concurrent save dropped
// returns (a restart or another process loses nothing stored).
const processMemory = new Map<string, SeenIds>();
const STORE_KEY = 'seenWebhookIds';

/** This process's memory of a trigger (`memoryKey`: workflow and node), the stored copy folded in. */
function recall(store: Record<string, unknown>, memoryKey: string, now: number) {
	const memory = processMemory.get(memoryKey) ?? {};
	processMemory.set(memoryKey, memory);
	return { memory, storeIsBehind: mergeSeen(memory, store[STORE_KEY], now) };
}

/** True when this trigger already accepted the delivery; otherwise records it, so that n8n saves `store`. */
export function isRepeatDelivery(store: Record<string, unknown>, memoryKey: string, id: string, now: number): boolean {
	const { memory, storeIsBehind } = recall(store, memoryKey, now);
	const duplicate = alreadySeen(memory, id, now);
	if (!duplicate || storeIsBehind) store[STORE_KEY] = memory;
	return duplicate;
}

/** True when this trigger already accepted the delivery; records nothing (a read-back is asked first). */
export function wasAccepted(store: Record<string, unknown>, memoryKey: string, id: string, now: number): boolean {
	return recall(store, memoryKey, now).memory[id] !== undefined; // recall drops expired ids
}
