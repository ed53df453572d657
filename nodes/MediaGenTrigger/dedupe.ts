// Remembers accepted webhook-ids long enough to cover the whole retry schedule
// (1 min + 5 min + 30 min + 2 h + 6 h + 24 h ≈ 32.6 h), bounded in size.
export const REMEMBER_MS = 48 * 3600 * 1000;
export const MAX_REMEMBERED = 10_000;

export type SeenIds = Record<string, number>;

/** Drops expired ids and, past the bound, the oldest ones. Mutates and returns `seen`. */
export function pruneSeen(seen: SeenIds, now: number): SeenIds {
	for (const [id, at] of Object.entries(seen)) if (now - at > REMEMBER_MS) delete seen[id];
	const ids = Object.keys(seen);
	if (ids.length > MAX_REMEMBERED) {
		ids.sort((a, b) => seen[a] - seen[b])
			.slice(0, ids.length - MAX_REMEMBERED)
			.forEach((id) => delete seen[id]);
	}
	return seen;
}

/** True when the id was already accepted; otherwise records it. */
export function alreadySeen(seen: SeenIds, id: string, now: number): boolean {
	if (seen[id] !== undefined && now - seen[id] <= REMEMBER_MS) return true;
	seen[id] = now;
	pruneSeen(seen, now);
	return false;
}
