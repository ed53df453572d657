// Unit tests of the rate buckets a request counts against and of the x-ratelimit-* headers.
import { SPEC_RATE_LIMITS } from '../../sandbox/config';
import { rateBuckets, rateHeaders } from '../../sandbox/http/rateBudget';
import { RateLimiter } from '../../sandbox/ratelimit';

describe('rateBuckets', () => {
	test('submissions and reads count per identity and per address; uploads per identity only', () => {
		expect(rateBuckets('submit', SPEC_RATE_LIMITS, 'acct_1', '10.0.0.1')).toEqual([
			{ key: 's:id:acct_1', limit: 20 },
			{ key: 's:ip:10.0.0.1', limit: 60 },
		]);
		expect(rateBuckets('read', SPEC_RATE_LIMITS, 'anon:x', '10.0.0.1')).toEqual([
			{ key: 'r:id:anon:x', limit: 240 },
			{ key: 'r:ip:10.0.0.1', limit: 600 },
		]);
		const uploads = rateBuckets('upload', SPEC_RATE_LIMITS, 'acct_1', '10.0.0.1');
		expect(uploads).toEqual([{ key: 'u:id:acct_1', limit: 30 }]);
	});
});

describe('rateHeaders', () => {
	test('whole seconds to the reset from one second up, three decimals below', () => {
		const now = 1_000_000;
		const verdict = { allowed: true, limit: 20, remaining: 19 };
		expect(rateHeaders({ ...verdict, resetAt: now + 59_200 }, now)).toEqual({
			'x-ratelimit-limit': '20',
			'x-ratelimit-remaining': '19',
			'x-ratelimit-reset': '60',
		});
		expect(rateHeaders({ ...verdict, resetAt: now + 250 }, now)['x-ratelimit-reset']).toBe('0.250');
		expect(rateHeaders({ ...verdict, resetAt: now - 5 }, now)['x-ratelimit-reset']).toBe('0.000');
	});

	test('report the tightest bucket the limiter counted', () => {
		const limiter = new RateLimiter(() => 60_000);
		const buckets = rateBuckets('submit', { ...SPEC_RATE_LIMITS, submitPerAddress: 2 }, 'acct_1', 'a');
		const now = 5_000;
		limiter.take(buckets, now);
		const headers = rateHeaders(limiter.take(buckets, now), now);
		expect(headers).toEqual({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' });
		expect(limiter.take(buckets, now).allowed).toBe(false);
	});
});
