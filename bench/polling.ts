/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 7. Polling cost: how late a run is seen done, and how many requests it costs, with the fixed 3 s interval
// (before) and with the schedule planned from the durations seen for the model (after, nodes/MediaGen/run/
// pollSchedule.ts, learning as waitForRun does from a cold start). Seeded durations as the sandbox draws them
// (image 20 s ± 50 %, video 90 s ± 50 %); the arithmetic of the schedule, with each read taking READ_MS.
import { DurationMemory, estimatedDurationMs, nextReadAtMs } from '../nodes/MediaGen/run/pollSchedule';
import { defaultConfig } from '../sandbox/config';
import { processingMs } from '../sandbox/submission';

const RUNS = 200;
const INTERVAL_MS = 3000;
/** How long after a read is sent its answer is in (loopback: a few ms): part of how late a run is seen done. */
const READ_MS = 20;
const KINDS = { image: 20_000, video: 90_000 } as const;

interface Outcome {
	overshootMs: number;
	requests: number;
	budget: number;
	firstReadMs: number;
}

/** One run of `durationMs`: read times from the schedule until a read after the run ended. */
function simulate(durationMs: number, memory: DurationMemory | undefined): Outcome {
	const window = memory?.window('model');
	let reads = 0;
	let lastReadAt = 0;
	let lastRunningAt = 0;
	let firstReadMs = 0;
	for (;;) {
		const at = nextReadAtMs(reads + 1, lastReadAt, INTERVAL_MS, window);
		reads++;
		if (reads === 1) firstReadMs = at;
		lastReadAt = at;
		if (at >= durationMs) break;
		lastRunningAt = at;
	}
	memory?.record('model', estimatedDurationMs(lastRunningAt, lastReadAt));
	return {
		overshootMs: lastReadAt + READ_MS - durationMs,
		requests: 1 + reads + 1,
		budget: 2 + Math.ceil(durationMs / INTERVAL_MS),
		firstReadMs,
	};
}

function main(): void {
	for (const [kind, meanMs] of Object.entries(KINDS)) {
		const config = defaultConfig({
			durations: { pendingMs: 0, image: KINDS.image, video: KINDS.video, music: 60_000 },
			durationJitter: { spread: 0.5, seed: 18 },
		});
		const durations = Array.from({ length: RUNS }, (_, n) => processingMs(config, kind as 'image', `run ${n}`));
		const memory = new DurationMemory();
		const before = durations.map((d) => simulate(d, undefined));
		const after = durations.map((d) => simulate(d, memory));
		const mean = (o: Outcome[], f: (x: Outcome) => number) => o.reduce((a, b) => a + f(b), 0) / o.length;
		const worst = (o: Outcome[]) => Math.max(...o.map((r) => r.requests - r.budget));
		const overshoot = [mean(before, (o) => o.overshootMs), mean(after, (o) => o.overshootMs)];
		const sign = (n: number) => (n > 0 ? `+${n}` : String(n));
		console.log(
			`polling: ${kind} ${meanMs / 1000} s ± 50 %, ${RUNS} seeded runs, Check Every ${INTERVAL_MS / 1000} s | ` +
				`seen done late by: before ${(overshoot[0] / 1000).toFixed(2)} s, after ` +
				`${(overshoot[1] / 1000).toFixed(2)} s a run (${((overshoot[1] / overshoot[0] - 1) * 100).toFixed(0)} %) | ` +
				`requests a run: before ${mean(before, (o) => o.requests).toFixed(2)}, after ` +
				`${mean(after, (o) => o.requests).toFixed(2)}; most over 2 + ceil(d / 3 s): before ${sign(worst(before))}, ` +
				`after ${sign(worst(after))} (target ≤ 0) | first read after ${RUNS} runs: ` +
				`${(after[after.length - 1].firstReadMs / 1000).toFixed(1)} s (before ${INTERVAL_MS / 1000} s)`,
		);
	}
}

main();
