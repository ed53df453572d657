// Fixed one-minute windows (scaled by the clock), per identity and per address, as the spec's Limits table.
export interface WindowState {
	count: number;
	resetAt: number;
}

export interface RateVerdict {
	allowed: boolean;
	limit: number;
	remaining: number;
	resetAt: number;
}

export class RateLimiter {
	private windows = new Map<string, WindowState>();

	constructor(private windowMs: () => number) {}

	/** Counts one request against every named bucket; refused when any is spent. Reports the tightest. */
	take(buckets: Array<{ key: string; limit: number }>, now = Date.now()): RateVerdict {
		let tightest: RateVerdict | undefined;
		const states = buckets.map(({ key, limit }) => {
			let w = this.windows.get(key);
			if (!w || now >= w.resetAt) {
				w = { count: 0, resetAt: now + this.windowMs() };
				this.windows.set(key, w);
			}
			return { w, limit };
		});
		const allowed = states.every(({ w, limit }) => w.count < limit);
		for (const { w, limit } of states) {
			if (allowed) w.count++;
			const verdict = { allowed, limit, remaining: Math.max(0, limit - w.count), resetAt: w.resetAt };
			if (!tightest || verdict.remaining < tightest.remaining) tightest = verdict;
		}
		return tightest ?? { allowed: true, limit: Infinity, remaining: Infinity, resetAt: now };
	}

	clear(): void {
		this.windows.clear();
	}
}
