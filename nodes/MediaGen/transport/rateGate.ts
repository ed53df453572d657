// Keeps a batch inside the service's rate limits by reading the X-RateLimit-* headers
// of earlier answers: when a window is spent, the next request waits for its reset
// instead of provoking a 429. Shared per identity (by fingerprint) within the process.
import { sleep } from 'n8n-workflow';

export type RateBucket = 'submit' | 'read' | 'upload';

interface Budget {
	remaining: number;
	resetAt: number;
}

const budgets = new Map<string, Budget>();

/** Reset may be given as seconds from now or as a Unix time in seconds; both are accepted. */
export function parseReset(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value === '') return undefined;
	const n = Number(value);
	if (!Number.isFinite(n)) return undefined;
	return n > 1e9 ? n * 1000 : now + n * 1000;
}

export function noteRateLimitHeaders(
	fingerprint: string,
	bucket: RateBucket,
	headers: Record<string, string>,
	now = Date.now(),
): void {
	const remaining = Number(headers['x-ratelimit-remaining']);
	const resetAt = parseReset(headers['x-ratelimit-reset'], now);
	if (!Number.isFinite(remaining) || resetAt === undefined) return;
	budgets.set(`${fingerprint}|${bucket}`, { remaining, resetAt });
}

/** Waits while the known budget of this bucket is spent; counts the request against it. */
export async function waitForRateBudget(
	fingerprint: string,
	bucket: RateBucket,
	signal?: AbortSignal,
): Promise<void> {
	const key = `${fingerprint}|${bucket}`;
	for (;;) {
		const budget = budgets.get(key);
		if (!budget) return;
		const now = Date.now();
		if (now >= budget.resetAt) {
			budgets.delete(key);
			return;
		}
		if (budget.remaining > 0) {
			budget.remaining--;
			return;
		}
		await sleep(Math.min(budget.resetAt - now + 25, 65_000), signal);
	}
}

export function resetRateBudgets(): void {
	budgets.clear();
}
