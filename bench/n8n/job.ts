// The job every variant of `npm run bench -- n8n` runs: 6 videos and 12 images on an account with concurrency 3,
// each prompt with its seeded duration (the sandbox draws the same one from the same prompt on every account),
// and the ideal makespans the variants are held against.
import { processingMs } from '../../sandbox/submission';
import type { SandboxConfig } from '../../sandbox/config';
import type { Kind } from '../../sandbox/types';

export const CONCURRENCY = 3;
/** Durations in the real world (issue #18): image 20 s ± 50 %, video 90 s ± 50 %, seeded. */
export const REAL_DURATIONS_MS = { image: 20_000, video: 90_000, music: 60_000 };
export const SPREAD = 0.5;
export const SEED = 18;

export interface JobItem {
	kind: Kind;
	model: string;
	prompt: string;
	resolution: string;
}

/**
 * Videos first, then images: the longest runs first is what a user who knows the queue would do, and it is the
 * order that suits the batched hand-built workflow best (no batch mixes a video with images).
 */
export function jobItems(): JobItem[] {
	const two = (n: number) => String(n).padStart(2, '0');
	return [
		...Array.from({ length: 6 }, (_, i) => ({
			kind: 'video' as const,
			model: 'studio-video-v1',
			prompt: `bench video ${two(i + 1)}: a paper boat on a rainy street`,
			resolution: '480p',
		})),
		...Array.from({ length: 12 }, (_, i) => ({
			kind: 'image' as const,
			model: 'studio-image-v1',
			prompt: `bench image ${two(i + 1)}: a lighthouse at dusk`,
			resolution: '1K',
		})),
	];
}

/** The sandbox settings for a time scale: run durations and every spec time span (rate windows) shrink alike. */
export function sandboxSettings(scale: number): Partial<SandboxConfig> {
	return {
		timeScale: scale,
		durations: {
			pendingMs: 0,
			image: REAL_DURATIONS_MS.image * scale,
			video: REAL_DURATIONS_MS.video * scale,
			music: REAL_DURATIONS_MS.music * scale,
		},
		durationJitter: { spread: SPREAD, seed: SEED },
	};
}

export function durationsOf(items: JobItem[], config: Partial<SandboxConfig>): number[] {
	const full = config as Pick<SandboxConfig, 'durations' | 'durationJitter'>;
	return items.map((item) => processingMs(full, item.kind, item.prompt));
}

/** Issue #18's ideal: per kind, ceil(N / concurrency) runs of the kind's mean duration, one kind after the other. */
export function perKindIdealMs(items: JobItem[], scale: number): number {
	const kinds = [...new Set(items.map((i) => i.kind))];
	return kinds.reduce((sum, kind) => {
		const n = items.filter((i) => i.kind === kind).length;
		return sum + Math.ceil(n / CONCURRENCY) * REAL_DURATIONS_MS[kind] * scale;
	}, 0);
}

/**
 * The shortest makespan of a client that runs one kind after the other (as a workflow with one step per kind
 * does): the best split of each kind's runs, added up.
 */
export function optimalPerKindMs(items: JobItem[], durations: number[], slots = CONCURRENCY): number {
	const kinds = [...new Set(items.map((i) => i.kind))];
	return kinds.reduce(
		(sum, kind) =>
			sum +
			optimalMakespanMs(
				durations.filter((_, n) => items[n].kind === kind),
				slots,
			),
		0,
	);
}

/**
 * The shortest makespan any client could reach with these exact durations on `slots` slots (reads and downloads
 * free): the best split of the runs over the slots, found by exhaustive search with pruning (18 runs: instant).
 */
export function optimalMakespanMs(durations: number[], slots = CONCURRENCY): number {
	const jobs = [...durations].sort((a, b) => b - a);
	const total = jobs.reduce((a, b) => a + b, 0);
	const lowerBound = Math.max(jobs[0] ?? 0, total / slots);
	const loads = new Array<number>(slots).fill(0);
	let best = Infinity;
	const place = (n: number, currentMax: number): void => {
		if (currentMax >= best || best <= lowerBound) return;
		if (n === jobs.length) {
			best = currentMax;
			return;
		}
		const tried = new Set<number>();
		for (let s = 0; s < slots; s++) {
			if (tried.has(loads[s])) continue; // slots with equal loads are interchangeable
			tried.add(loads[s]);
			loads[s] += jobs[n];
			place(n + 1, Math.max(currentMax, loads[s]));
			loads[s] -= jobs[n];
		}
	};
	place(0, 0);
	return best;
}
