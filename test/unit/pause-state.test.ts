// Pause mode's pure pieces: the resume calls' memory, what n8n's timer passes on, the per-item webhook URL,
// and where the service could call back.
import type { RunRecord } from '../../nodes/shared/records';
import { resumeUrlProblem } from '../../nodes/MediaGen/run/checkRequest';
import {
	isPauseState,
	itemWebhookUrl,
	positionFromQuery,
	type PauseState,
} from '../../nodes/MediaGen/pause/pauseState';
import { BatchMemory, batchMemoryOf } from '../../nodes/MediaGen/pause/batchMemory';
import { TIMER_ERROR, timerOutcomeItems } from '../../nodes/MediaGen/pause/timerOutcome';

const state = (items: number, lanes: number): PauseState => ({
	version: 1,
	lanes,
	deadline: 0,
	pausedAt: 0,
	continueOnFail: false,
	invalid: [],
	items: Array.from({ length: items }, (_, item) => ({ item, body: {}, download: true, binaryProperty: 'data' })),
});

describe("the resume calls' memory of a batch", () => {
	const run = (id: string, status: string) => ({ id, status }) as RunRecord;

	test('counts runs in flight, including items being sent, and never lets an older state replace a final one', () => {
		const ledger = new BatchMemory();
		ledger.learn(0, run('a', 'PROCESSING'), true);
		ledger.learn(1, run('b', 'SUCCEEDED'), true);
		ledger.sending.add(2);
		expect(ledger.inFlight()).toBe(2);
		ledger.learn(1, run('b', 'PENDING'), false);
		expect(ledger.isFinal(1)).toBe(true);
		expect(ledger.runs.get(1)?.watched).toBe(true);
		ledger.learn(0, run('a', 'SUCCEEDED'), false);
		expect(ledger.inFlight()).toBe(1);
	});

	test('one memory per batch, found again by its key', () => {
		const key = `batch-${Math.random()}`;
		batchMemoryOf(key).failedChecks = 3;
		expect(batchMemoryOf(key).failedChecks).toBe(3);
		expect(batchMemoryOf(`${key}-other`).failedChecks).toBe(0);
	});
});

test("n8n's own timer passes on an outcome per item, never the input items, with each item's request key", () => {
	const s = state(3, 2);
	s.pausedAt = 0;
	s.deadline = 180_000;
	s.items.forEach((entry, i) => (entry.body.requestKey = `key-${i}`));
	s.items[0].runId = 'gen_0';
	s.items.splice(1, 1);
	s.items[1].item = 2;
	s.invalid = [{ item: 1, message: 'Prompt is empty.' }];
	const items = timerOutcomeItems(s, 3);
	expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(items[0].json).toMatchObject({ error: TIMER_ERROR, timedOut: true, requestKey: 'key-0', runId: 'gen_0' });
	expect(String(items[0].json.description)).toMatch(/within 3 minutes plus one minute/);
	expect(String(items[0].json.description)).toMatch(/Webhook Signing Secret did not match/);
	expect(items[1].json).toMatchObject({ error: 'Prompt is empty.' });
	expect(items[2].json).toMatchObject({ error: TIMER_ERROR, requestKey: 'key-2' });
	expect(items[2].json.runId).toBeUndefined();
});

test("the item position travels on the run's webhook URL beside n8n's token", () => {
	const url = itemWebhookUrl('https://n8n.example.com/webhook-waiting/42?signature=abc', 5);
	expect(url).toBe('https://n8n.example.com/webhook-waiting/42?signature=abc&mgItem=5');
	expect(positionFromQuery({ mgItem: '5' }, state(8, 3))).toBe(5);
	expect(positionFromQuery({ mgItem: '8' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({ mgItem: 'x' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({}, state(8, 3))).toBeUndefined();
});

test('the resume URL must be https on a public host, unless the service runs on the same machine', () => {
	const api = 'https://api.example.com/v1';
	expect(resumeUrlProblem('https://n8n.example.com/webhook-waiting/1?signature=t', api)).toBeUndefined();
	expect(resumeUrlProblem('http://n8n.example.com/webhook-waiting/1?signature=t', api)).toBe(
		"this execution's resume URL (http://n8n.example.com/webhook-waiting/1) is not https",
	);
	for (const host of ['localhost:5678', '127.0.0.1:5678', '10.0.0.2', '192.168.1.5', '172.20.0.3', 'n8n.local']) {
		expect(resumeUrlProblem(`https://${host}/webhook-waiting/1`, api)).toMatch(/private or local host/);
	}
	expect(resumeUrlProblem('http://127.0.0.1:5678/webhook-waiting/1', 'http://127.0.0.1:4010/v1')).toBeUndefined();
	expect(resumeUrlProblem('not a url', api)).toMatch(/no usable resume URL/);
});

test('a recorded batch is recognised, anything else is not', () => {
	expect(isPauseState(state(1, 1))).toBe(true);
	expect(isPauseState({ version: 2 })).toBe(false);
	expect(isPauseState(undefined)).toBe(false);
});
