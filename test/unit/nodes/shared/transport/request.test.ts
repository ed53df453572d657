/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/shared/transport/request.ts: the rate gate (reads the reset header, waits for a spent window, counts requests
// in flight against what a header reports), and waits a cancelled execution ends at once, on n8n 2.x (whose sleep
// takes the abort signal) and on 1.x, modelled here: n8n 1.123's sleep(ms) ignores a second argument.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms)),
}));

import {
	acquireRateBudget,
	MAX_RESET_WAIT_MS,
	parseReset,
	sleepUnlessAborted,
} from '../../../../../nodes/shared/transport/request';

describe('rate gate', () => {
	test('reset is read as seconds from now, a Unix time in seconds or a Unix time in milliseconds', () => {
		const now = 1_700_000_000_000;
		expect(parseReset('2', now)).toBe(now + 2_000);
		expect(parseReset('0.25', now)).toBe(now + 250);
		expect(parseReset(String(now / 1000 + 30), now)).toBe(now + 30_000);
		expect(parseReset(String(now + 12_000), now)).toBe(now + 12_000);
		expect(parseReset('', now)).toBeUndefined();
		expect(parseReset('soon', now)).toBeUndefined();
	});

	test('every reading of the reset is bounded: none is further away than one window, none in the past', () => {
		const now = 1_700_000_000_000;
		// Unix milliseconds read as seconds would be tens of thousands of years away.
		expect(parseReset(String(now * 1000), now)).toBe(now + MAX_RESET_WAIT_MS);
		expect(parseReset(String(now / 1000 + 3600), now)).toBe(now + MAX_RESET_WAIT_MS);
		expect(parseReset('86400', now)).toBe(now + MAX_RESET_WAIT_MS);
		expect(parseReset(String(now - 5_000), now)).toBe(now);
		expect(MAX_RESET_WAIT_MS).toBeLessThanOrEqual(65_000);
	});
});

// The waits run on jest's fake clock (Date and the timers n8n's sleep uses): how long the gate held a request is
// read off that clock, the same on any machine.
describe('rate gate waits', () => {
	beforeEach(() => jest.useFakeTimers({ now: 1_700_000_000_000 }));
	afterEach(() => jest.useRealTimers());

	/** Moves the fake clock from timer to timer until `acquired` resolves; returns how long that took on it. */
	async function heldFor(acquired: Promise<unknown>): Promise<number> {
		const from = Date.now();
		let done = false;
		void acquired.then(() => (done = true));
		await jest.advanceTimersByTimeAsync(0);
		while (!done) {
			if (jest.getTimerCount() === 0) throw new Error('the gate holds the request with no timer to end it');
			await jest.advanceTimersToNextTimerAsync();
		}
		return Date.now() - from;
	}

	test('a spent window whose reset comes as a Unix time in milliseconds holds the next request until then', async () => {
		const id = `gate-ms-${Math.random()}`;
		const first = await acquireRateBudget(id, 'read');
		first({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Date.now() + 300) });
		// Read as seconds, this reset would hold the request for the longest wait (65 s).
		const second = acquireRateBudget(id, 'read');
		const held = await heldFor(second);
		expect(held).toBeGreaterThanOrEqual(300);
		expect(held).toBeLessThan(1_000);
		(await second)();
	});

	test('counts requests in flight against the reported budget and waits for the reset once spent', async () => {
		const id = `gate-${Math.random()}`;
		const first = await acquireRateBudget(id, 'read');
		const second = await acquireRateBudget(id, 'read');
		// The first answer says 2 left; the second request is still in flight, so 1 is really left.
		first({ 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': '0.3' });
		const third = acquireRateBudget(id, 'read');
		expect(await heldFor(third)).toBe(0);
		second({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '0.3' });
		(await third)();
		const fourth = acquireRateBudget(id, 'read');
		expect(await heldFor(fourth)).toBeGreaterThanOrEqual(300);
		(await fourth)();
	});

	test('a deadline ends the wait: the request goes out, and its 429 is what the caller sees', async () => {
		const id = `gate-${Math.random()}`;
		(await acquireRateBudget(id, 'submit'))({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
		const acquired = acquireRateBudget(id, 'submit', undefined, Date.now() + 100);
		expect(await heldFor(acquired)).toBe(100);
		(await acquired)();
	});
});

const HOUR = 3600_000;

test('an abort ends a wait of an hour, with the reason given', async () => {
	const control = new AbortController();
	const waiting = sleepUnlessAborted(HOUR, control.signal);
	control.abort(new Error('The execution was stopped'));
	await expect(waiting).rejects.toThrow('The execution was stopped');
});

test('an aborted signal refuses to wait at all; without a reason the error says the execution was cancelled', async () => {
	const control = new AbortController();
	control.abort('no error object');
	await expect(sleepUnlessAborted(HOUR, control.signal)).rejects.toThrow('The execution was cancelled');
});

test('without an abort the wait ends by itself', async () => {
	await expect(sleepUnlessAborted(5, new AbortController().signal)).resolves.toBeUndefined();
	await expect(sleepUnlessAborted(5)).resolves.toBeUndefined();
});
