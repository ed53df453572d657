// nodes/MediaGen/run/pollSchedule.ts: the poll schedule as arithmetic: the plain interval when nothing is known, reads
// moved into the stretch where a model's runs finish once they are, and never more reads than the plain interval makes.
import {
	DurationMemory,
	estimatedDurationMs,
	MIN_GAP_MS,
	nextReadAtMs,
} from '../../../../../nodes/MediaGen/run/pollSchedule';
import type { FinishWindow } from '../../../../../nodes/MediaGen/run/pollSchedule';

/** The read times until a run of `durationMs` is seen done (reads take no time here). */
function readTimes(durationMs: number, intervalMs: number, window?: FinishWindow): number[] {
	const times: number[] = [];
	let at = 0;
	while (at < durationMs) {
		at = nextReadAtMs(times.length + 1, at, intervalMs, window);
		times.push(at);
	}
	return times;
}

test('without a window: a read every interval, as before', () => {
	expect(readTimes(10_000, 3000)).toEqual([3000, 6000, 9000, 12_000]);
	expect(readTimes(100, 1000)).toEqual([1000]);
});

test('with a window: the first read at its start, reads packed across it, then the plain interval', () => {
	const window = { earliestMs: 10_000, latestMs: 30_000 };
	const times = readTimes(40_000, 3000, window);
	expect(times[0]).toBe(10_000);
	// the 10 reads the interval allows by 30 s, spread over 10–30 s
	expect(times[9]).toBeCloseTo(30_000, 0);
	expect(times[1] - times[0]).toBeCloseTo(20_000 / 9, 0);
	expect(times[10]).toBeCloseTo(33_000, 0);
	expect(times[11]).toBeCloseTo(36_000, 0);
});

test.each([
	[{ earliestMs: 10_000, latestMs: 30_000 }, 3000],
	[{ earliestMs: 45_000, latestMs: 135_000 }, 3000],
	[{ earliestMs: 2000, latestMs: 6000 }, 1000],
	[{ earliestMs: 20_000, latestMs: 20_100 }, 3000],
	[{ earliestMs: 500, latestMs: 900 }, 1000],
])('never more reads than ceil(duration / interval), window %j, interval %i', (window, intervalMs) => {
	const overBudget: number[] = [];
	let closestGap = Infinity;
	for (let d = 1; d <= 3 * window.latestMs; d += 37) {
		const times = readTimes(d, intervalMs, window);
		if (times.length > Math.ceil(d / intervalMs)) overBudget.push(d);
		for (let k = 1; k < times.length; k++) closestGap = Math.min(closestGap, times[k] - times[k - 1]);
	}
	expect(overBudget).toEqual([]);
	expect(closestGap).toBeGreaterThanOrEqual(MIN_GAP_MS - 1e-9);
});

test('inside the window a run is seen done sooner on average than with the plain interval', () => {
	const window = { earliestMs: 10_000, latestMs: 30_000 };
	const overshoot = (w?: FinishWindow) => {
		let sum = 0;
		let n = 0;
		for (let d = 10_000; d <= 30_000; d += 13, n++) sum += readTimes(d, 3000, w).pop()! - d;
		return sum / n;
	};
	expect(overshoot()).toBeCloseTo(1500, -2);
	expect(overshoot(window)).toBeLessThan(0.8 * overshoot());
});

test('the memory keeps recent durations per model and gives a window at least ±25 % around their mean', () => {
	const memory = new DurationMemory();
	expect(memory.window('m')).toBeUndefined();
	memory.record('m', 20_000);
	expect(memory.window('m')).toEqual({ earliestMs: 15_000, latestMs: 25_000 });
	memory.record('m', 10_000);
	memory.record('m', 30_000);
	expect(memory.window('m')).toEqual({ earliestMs: 10_000, latestMs: 30_000 });
	for (let i = 0; i < 20; i++) memory.record('m', 40_000);
	expect(memory.window('m')).toEqual({ earliestMs: 30_000, latestMs: 50_000 });
	memory.record('', 1000);
	memory.record('x', Number.NaN);
	expect(memory.window('x')).toBeUndefined();
	for (let i = 0; i < 70; i++) memory.record(`model-${i}`, 1000);
	expect(memory.window('m')).toBeUndefined(); // evicted: the least recently recorded of more than 64 models
	expect(estimatedDurationMs(9000, 12_000)).toBe(10_500);
});
