/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A cancelled execution stops waiting at once, on n8n 2.x (whose sleep takes the abort signal) and on 1.x, modelled
// here: n8n 1.123's sleep(ms) ignores a second argument.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms)),
}));

import { sleepUnlessAborted } from '../../../../../nodes/shared/transport/sleep';

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
