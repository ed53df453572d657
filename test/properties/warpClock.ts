/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A faster clock for the property suite: in this test file's realm, Date, setTimeout and setInterval run WARP times
// faster than the wall clock, for the node, n8n-core and the sandbox alike. The node reads a run at most once a
// second (its minimum Check Every), backs off for seconds after a lost answer and waits out Retry-After; on the
// warped clock those waits cost milliseconds, so hundreds of batches fit in the suite's time. Nothing is skipped:
// every wait still happens, in order, and every deadline is measured on the same clock as every delay. Node's own
// socket time-outs (http, the sandbox's 10 s delivery limit) stay on the wall clock: they are generous there.
// Import this module first in a test file, so that modules which capture the timers at load get the warped ones.

/** How many warped milliseconds pass per wall-clock millisecond. */
export const WARP = Number(process.env.PROPERTY_WARP ?? 40);

const realNow = Date.now.bind(Date);
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realSetInterval = globalThis.setInterval;
const RealDate = Date;
const origin = realNow();

/** The warped time in epoch ms. */
export function warpedNow(): number {
	return Math.floor(origin + (realNow() - origin) * WARP);
}

/** The wall clock, for the suite's own budget (fast-check's time limit, the soak's summary). */
export const wallNow = realNow;

/** A timer on the wall clock (the suite's own watchdogs). */
export const wallSetTimeout = realSetTimeout;

/** Timers that fired before their warped due time and were set again: clearing the first clears the second. */
const rearmed = new WeakMap<NodeJS.Timeout, { cancel(): void }>();

/**
 * A timer fires when its warped due time has come, never before: Node's timers may fire up to a loop iteration
 * early against Date.now (libuv's cached loop time), which the warp would turn into many warped milliseconds.
 */
function warpedSetTimeout(fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]): NodeJS.Timeout {
	const due = warpedNow() + Math.max(0, Number(ms ?? 0));
	let current: NodeJS.Timeout;
	let cancelled = false;
	const fire = () => {
		if (cancelled) return;
		const left = due - warpedNow();
		if (left > 0) {
			const next = realSetTimeout(fire, Math.ceil(left / WARP));
			if (!first.hasRef()) next.unref();
			current = next;
			return;
		}
		fn(...args);
	};
	const first = realSetTimeout(fire, Math.ceil(Math.max(0, Number(ms ?? 0)) / WARP));
	current = first;
	rearmed.set(first, {
		cancel: () => {
			cancelled = true;
			realClearTimeout(current);
		},
	});
	return first;
}

function install(): void {
	const g = globalThis as unknown as Record<string, unknown>;
	if ((g.Date as { warped?: boolean }).warped) return;
	class WarpedDate extends RealDate {
		static warped = true;
		constructor(...args: unknown[]) {
			if (args.length === 0) super(warpedNow());
			else super(...(args as [string]));
		}
		static now(): number {
			return warpedNow();
		}
	}
	g.Date = WarpedDate;
	const scaled = (ms: unknown) => Math.max(0, Number(ms ?? 0) / WARP);
	g.setTimeout = warpedSetTimeout as unknown as typeof setTimeout;
	g.clearTimeout = ((timer: NodeJS.Timeout | undefined) => {
		if (timer) rearmed.get(timer)?.cancel();
		realClearTimeout(timer);
	}) as typeof clearTimeout;
	g.setInterval = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) =>
		realSetInterval(fn, scaled(ms), ...args)) as unknown as typeof setInterval;
}

install();

/** Resolves after `ms` warped milliseconds. */
export const warpedSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits (on the warped clock) until `done()` holds, checking every `everyMs`; false if `withinMs` passes first. */
export async function until(done: () => boolean, withinMs: number, everyMs = 50): Promise<boolean> {
	const end = Date.now() + withinMs;
	while (!done()) {
		if (Date.now() > end) return false;
		await warpedSleep(everyMs);
	}
	return true;
}
