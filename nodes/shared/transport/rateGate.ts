// Keeps a batch inside the service's rate limits by reading the X-RateLimit-* headers of earlier
// answers: when a window is spent, the next request waits for its reset instead of provoking a 429.
// Shared per identity (by fingerprint) in memory. Requests still in flight are counted
// against the budget a header reports, because the header could not know about them yet.
import { sleepUnlessAborted } from './sleep';

export type RateBucket = 'submit' | 'read' | 'upload';

interface Budget {
	remaining?: number;
	resetAt?: number;
	inFlight: number;
}

const budgets = new Map<string, Budget>();

/**
 * The spec's windows are a minute long, so no reset is believed further away than this: a reading misunderstood
 * (or a clock far off) costs at most one such wait instead of a request that never goes out.
 */
export const MAX_RESET_WAIT_MS = 65_000;

/**
 * When the window resets, in epoch ms, from X-RateLimit-Reset, whose unit the spec does not give: seconds from
 * now, a Unix time in seconds, or a Unix time in milliseconds (told apart by size), never later than
 * MAX_RESET_WAIT_MS from now.
 */
export function parseReset(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value === '') return undefined;
	const n = Number(value);
	if (!Number.isFinite(n)) return undefined;
	const at = n > 1e12 ? n : n > 1e9 ? n * 1000 : now + n * 1000;
	return Math.min(Math.max(at, now), now + MAX_RESET_WAIT_MS);
}

function budgetOf(key: string): Budget {
	let b = budgets.get(key);
	if (!b) {
		b = { inFlight: 0 };
		budgets.set(key, b);
	}
	return b;
}

/** Waits while the known budget of this bucket is spent, then counts one request in flight. */
export async function acquireRateBudget(
	fingerprint: string,
	bucket: RateBucket,
	signal?: AbortSignal,
	deadline?: number,
): Promise<(headers?: Record<string, string>) => void> {
	const b = budgetOf(`${fingerprint}|${bucket}`);
	for (;;) {
		const now = Date.now();
		if (b.resetAt !== undefined && now >= b.resetAt) {
			b.remaining = undefined;
			b.resetAt = undefined;
		}
		if (b.remaining === undefined || b.remaining > 0) break;
		// Past the caller's deadline the request goes out anyway; a 429 then ends it without a wait.
		if (deadline !== undefined && now >= deadline) break;
		const until = Math.min((b.resetAt ?? now) + 25, deadline ?? Infinity);
		await sleepUnlessAborted(Math.min(Math.max(until - now, 1), 65_000), signal);
	}
	if (b.remaining !== undefined) b.remaining--;
	b.inFlight++;
	let released = false;
	return (headers) => {
		if (released) return;
		released = true;
		b.inFlight--;
		if (headers) noteHeaders(b, headers, Date.now());
	};
}

function noteHeaders(b: Budget, headers: Record<string, string>, now: number): void {
	const reported = Number(headers['x-ratelimit-remaining']);
	const resetAt = parseReset(headers['x-ratelimit-reset'], now);
	if (!Number.isFinite(reported) || resetAt === undefined) return;
	const estimate = Math.max(0, reported - b.inFlight);
	const sameWindow =
		b.resetAt !== undefined && b.remaining !== undefined && Math.abs(b.resetAt - resetAt) < 1500 && b.resetAt > now;
	b.remaining = sameWindow ? Math.min(b.remaining!, estimate) : estimate;
	b.resetAt = sameWindow ? Math.max(b.resetAt!, resetAt) : resetAt;
}
