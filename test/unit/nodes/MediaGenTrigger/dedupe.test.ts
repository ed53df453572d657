// nodes/MediaGenTrigger/dedupe.ts: the remembered webhook-ids: the 48-hour window, the 10,000 bound, and folding in a
// stored copy.
import {
	alreadySeen,
	isRepeatDelivery,
	MAX_REMEMBERED,
	mergeSeen,
	pruneSeen,
	REMEMBER_MS,
	type SeenIds,
	wasAccepted,
} from '../../../../nodes/MediaGenTrigger/dedupe';

const T0 = 1_700_000_000_000;
const H = 3600 * 1000;

test('an id is a duplicate for the whole retry schedule (32.6 h) and forgotten after 48 h', () => {
	const seen: SeenIds = {};
	expect(alreadySeen(seen, 'msg_a', T0)).toBe(false);
	for (const later of [1, 60_000, 32.6 * H, REMEMBER_MS]) expect(alreadySeen(seen, 'msg_a', T0 + later)).toBe(true);
	expect(alreadySeen(seen, 'msg_a', T0 + REMEMBER_MS + 1)).toBe(false);
});

test('at most 10,000 ids are kept, the oldest dropped first', () => {
	const seen: SeenIds = Object.fromEntries(Array.from({ length: MAX_REMEMBERED }, (_, i) => [`msg_${i}`, T0 + i]));
	for (let i = MAX_REMEMBERED; i < MAX_REMEMBERED + 25; i++) expect(alreadySeen(seen, `msg_${i}`, T0 + i)).toBe(false);
	expect(Object.keys(seen)).toHaveLength(MAX_REMEMBERED);
	expect(seen.msg_24).toBeUndefined();
	expect(seen.msg_25).toBe(T0 + 25);
	expect(pruneSeen({ old: T0 - REMEMBER_MS - 1, fresh: T0 }, T0)).toEqual({ fresh: T0 });
});

test('mergeSeen folds a stored copy in, keeps the first time, skips junk and says when the copy is behind', () => {
	const memory: SeenIds = { a: T0, b: T0 + 5 };
	const stored = { a: T0, b: T0 + 1, c: T0 + 2, junk: 'x', nan: Number.NaN, expired: T0 - REMEMBER_MS - H };
	expect(mergeSeen(memory, stored, T0 + 10)).toBe(false);
	expect(memory).toEqual({ a: T0, b: T0 + 1, c: T0 + 2 });
	expect(mergeSeen(memory, { a: T0 }, T0 + 10)).toBe(true); // b and c are missing from it
	for (const stored of [undefined, null, 'text', 7, []]) expect(mergeSeen({}, stored, T0)).toBe(false);
	expect(mergeSeen({ a: T0 }, undefined, T0)).toBe(true);
});

test('asking whether an id was accepted records nothing; the stored copy counts', () => {
	const store: Record<string, unknown> = {};
	expect(wasAccepted(store, 'wf:peek', 'msg_a', T0)).toBe(false);
	expect(wasAccepted(store, 'wf:peek', 'msg_a', T0)).toBe(false);
	expect(store).toEqual({});
	expect(isRepeatDelivery(store, 'wf:peek', 'msg_a', T0)).toBe(false);
	expect(wasAccepted(store, 'wf:peek', 'msg_a', T0 + REMEMBER_MS)).toBe(true);
	expect(wasAccepted(store, 'wf:peek', 'msg_a', T0 + REMEMBER_MS + 1)).toBe(false);
	// Another process (no memory of its own) reads the stored copy.
	expect(wasAccepted({ seenWebhookIds: { msg_b: T0 } }, 'wf:other', 'msg_b', T0 + H)).toBe(true);
});
