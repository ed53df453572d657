/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Waits for a condition, never for a fixed time: the one poll of the test suites (npm run lint:repo refuses a
// fixed sleep in test/, and points here). A test that waits for something to NOT happen waits instead for a
// marker known to come after it (test/e2e/shared.ts, untilMarkerRan), then checks.

/** What a probe gives while its condition does not hold yet. */
type NotYet = undefined | null | false;
/** Says whether the condition holds: by giving a value, or something NotYet. */
export type Probe<T> = () => T | NotYet | Promise<T | NotYet>;

/**
 * Asks `probe` until it gives something other than undefined, null or false, and returns that (a probe may
 * return what it found: an execution, a list). Fails after `ms`, naming `what` (a function is asked only then,
 * so it can add what the failure needs, such as a log). Between two asks it waits `everyMs`: 10 ms for a probe of
 * this process's memory, longer for one that asks a server (n8n), which a tight loop would only load.
 */
export async function until<T>(probe: Probe<T>, what: string | (() => string), ms = 30_000, everyMs = 10): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await probe();
		if (value !== undefined && value !== null && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`Waited ${ms / 1000} s for ${typeof what === 'string' ? what : what()}`);
		await new Promise((r) => setImmediate(r));
		await new Promise((r) => setTimeout(r, everyMs));
	}
}
