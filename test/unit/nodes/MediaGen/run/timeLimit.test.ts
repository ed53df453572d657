// nodes/MediaGen/run/timeLimit.ts: an item's time limit, and a paused batch's.
import { batchDeadline, itemDeadline } from '../../../../../nodes/MediaGen/run/timeLimit';

const MINUTE = 60_000;
const fromNow = (deadline: number) => Math.round((deadline - Date.now()) / MINUTE);

test("left at 0, an item's limit is the suggested one for its kind; a limit set is kept", () => {
	expect(fromNow(itemDeadline('image'))).toBe(3);
	expect(fromNow(itemDeadline('video'))).toBe(10);
	expect(fromNow(itemDeadline('music'))).toBe(5);
	expect(fromNow(itemDeadline('image', 7 * MINUTE))).toBe(7);
});

test('a paused batch left at 0 gets the suggested limit for each round of runs it needs on its slots', () => {
	const images = (n: number, timeoutMs?: number) => Array.from({ length: n }, () => ({ kind: 'image', timeoutMs }));
	expect(fromNow(batchDeadline(images(2), 2))).toBe(3);
	expect(fromNow(batchDeadline(images(300), 2))).toBe(450);
	// Mixed kinds: the longest item's limit, per round.
	expect(fromNow(batchDeadline([...images(3), { kind: 'video', timeoutMs: undefined }], 2))).toBe(20);
	// A limit set is the whole batch's, as it is.
	expect(fromNow(batchDeadline(images(300, 2 * MINUTE), 2))).toBe(2);
});
