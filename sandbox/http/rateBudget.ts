/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Spending a request against the spec's per-minute limits, and the x-ratelimit-* headers that report it.
import type { RateLimits } from '../config';
import { ApiFailure } from '../apiFailure';
import type { RateVerdict } from '../ratelimit';
import type { Caller } from '../types';
import type { SandboxContext } from './context';

export type RateKind = 'submit' | 'read' | 'upload';

/** The buckets one request counts against: per identity and per address (uploads: per identity only). */
export function rateBuckets(
	kind: RateKind,
	limits: RateLimits,
	ownerId: string,
	address: string,
): Array<{ key: string; limit: number }> {
	if (kind === 'submit') {
		return [
			{ key: `s:id:${ownerId}`, limit: limits.submitPerIdentity },
			{ key: `s:ip:${address}`, limit: limits.submitPerAddress },
		];
	}
	if (kind === 'read') {
		return [
			{ key: `r:id:${ownerId}`, limit: limits.readPerIdentity },
			{ key: `r:ip:${address}`, limit: limits.readPerAddress },
		];
	}
	return [{ key: `u:id:${ownerId}`, limit: limits.uploadPerIdentity }];
}

/** Whole seconds, or fractional ones below one second (a scaled clock makes windows that short). */
function secondsText(seconds: number): string {
	return seconds >= 1 ? String(Math.ceil(seconds)) : seconds.toFixed(3);
}

/** Sandbox choice (unit not shown): seconds until the window resets; strict mode: the Unix time of it in ms. */
export function rateHeaders(verdict: RateVerdict, now = Date.now(), strict = false): Record<string, string> {
	const seconds = Math.max(0, (verdict.resetAt - now) / 1000);
	return {
		'x-ratelimit-limit': String(verdict.limit),
		'x-ratelimit-remaining': String(verdict.remaining),
		'x-ratelimit-reset': strict ? String(Math.ceil(verdict.resetAt)) : secondsText(seconds),
	};
}

/** Counts the request; refuses it with 429 and Retry-After when a bucket is spent. Returns the rate headers. */
export function spendRateBudget(
	ctx: SandboxContext,
	kind: RateKind,
	caller: Caller,
	address: string,
): Record<string, string> {
	const verdict = ctx.limiter.take(rateBuckets(kind, ctx.config.rateLimits, caller.ownerId, address));
	const headers = rateHeaders(verdict, Date.now(), ctx.config.strict);
	if (!verdict.allowed) {
		const retry = Math.max(0.001, (verdict.resetAt - Date.now()) / 1000);
		throw new ApiFailure(429, 'rate_limited', 'Too many requests; wait before retrying', undefined, {
			...headers,
			'retry-after': secondsText(retry),
		});
	}
	return headers;
}

/** Adds the rate headers to a failure thrown after the budget was spent, so refused answers report them too. */
export async function withRateHeaders<T>(headers: Record<string, string>, work: () => T | Promise<T>): Promise<T> {
	try {
		return await work();
	} catch (e) {
		if (e instanceof ApiFailure) Object.assign(e.headers, headers);
		throw e;
	}
}
