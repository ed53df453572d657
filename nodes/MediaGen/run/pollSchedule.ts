// When to read a run again: a pure schedule. The service suggests a read every 3 to 5 seconds, so a run is
// seen done up to one interval late. Once this process has seen how long a model's runs take, the reads are
// moved from the stretch where no run of that model has ever finished to the stretch where they do, and packed
// closer there. Never more reads than the fixed interval would make: the k-th read is never earlier than
// k intervals after the submission, so a run of duration d costs at most ceil(d / interval) reads.

/** The stretch, in ms after submission, in which this model's runs have been seen to finish. */
export interface FinishWindow {
	earliestMs: number;
	latestMs: number;
}

/** Reads are never closer together than this, whatever the window (a loopback read takes a few ms). */
export const MIN_GAP_MS = 200;
/** How many recent durations are kept per model, and for how many models. */
const SAMPLES_PER_MODEL = 20;
const MODELS_KEPT = 64;
/** Few samples say little about the spread: the window is at least this share of their mean on each side. */
const MIN_HALF_WIDTH = 0.25;

/**
 * When to send read number `readNumber` (1 for the first), in ms after the submission was answered.
 * `previousReadAtMs` is when the last read was sent (0 for the first read). Without a window: every
 * `intervalMs`, as before. With one: the first read at the window's start, the reads the interval would
 * have made by the window's end spread evenly across it, then every `intervalMs` again.
 */
export function nextReadAtMs(
	readNumber: number,
	previousReadAtMs: number,
	intervalMs: number,
	window?: FinishWindow,
): number {
	const budget = readNumber * intervalMs;
	if (!window || window.latestMs <= intervalMs) return Math.max(budget, previousReadAtMs + intervalMs);
	const first = Math.max(window.earliestMs, intervalMs);
	const reads = Math.floor(window.latestMs / intervalMs);
	const gap = reads > 1 ? Math.max(MIN_GAP_MS, (window.latestMs - first) / (reads - 1)) : intervalMs;
	let wanted: number;
	if (readNumber === 1) wanted = first;
	else if (previousReadAtMs < window.latestMs) wanted = previousReadAtMs + gap;
	else wanted = previousReadAtMs + intervalMs;
	return Math.max(budget, wanted, previousReadAtMs + MIN_GAP_MS);
}

/** A run seen done at `finalReadAtMs`, still running at `lastRunningAtMs`: its likeliest duration. */
export function estimatedDurationMs(lastRunningAtMs: number, finalReadAtMs: number): number {
	return (lastRunningAtMs + finalReadAtMs) / 2;
}

/** Recent run durations per model, in this process; the window they give. */
export class DurationMemory {
	private readonly byModel = new Map<string, number[]>();

	record(model: string, durationMs: number): void {
		if (!model || !Number.isFinite(durationMs) || durationMs <= 0) return;
		const samples = this.byModel.get(model) ?? [];
		this.byModel.delete(model); // re-inserted last: the map's order is the eviction order
		samples.push(durationMs);
		if (samples.length > SAMPLES_PER_MODEL) samples.shift();
		this.byModel.set(model, samples);
		if (this.byModel.size > MODELS_KEPT) this.byModel.delete(this.byModel.keys().next().value as string);
	}

	window(model: string): FinishWindow | undefined {
		const samples = this.byModel.get(model);
		if (!samples?.length) return undefined;
		const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
		return {
			earliestMs: Math.min(...samples, mean * (1 - MIN_HALF_WIDTH)),
			latestMs: Math.max(...samples, mean * (1 + MIN_HALF_WIDTH)),
		};
	}

	clear(): void {
		this.byModel.clear();
	}
}
