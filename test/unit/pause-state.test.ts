// Pause mode's pure pieces: lanes, the per-item webhook URL, and where the service could call back.
import { resumeUrlProblem } from '../../nodes/MediaGen/helpers/pause';
import {
	endsLane,
	isPauseState,
	itemWebhookUrl,
	laneStarts,
	nextInLane,
	positionFromQuery,
	type PauseState,
} from '../../nodes/MediaGen/helpers/pauseState';

const state = (items: number, lanes: number): PauseState => ({
	version: 1,
	lanes,
	deadline: 0,
	pausedAt: 0,
	continueOnFail: false,
	invalid: [],
	items: Array.from({ length: items }, (_, item) => ({ item, body: {}, download: true, binaryProperty: 'data' })),
});

test('8 items on 3 lanes: each item is followed by the one three places on; the last three end their lanes', () => {
	const s = state(8, 3);
	expect(laneStarts(s)).toEqual([0, 1, 2]);
	expect([0, 1, 2, 3, 4, 5, 6, 7].map((p) => nextInLane(s, p))).toEqual([
		3,
		4,
		5,
		6,
		7,
		undefined,
		undefined,
		undefined,
	]);
	expect([4, 5, 6, 7].map((p) => endsLane(s, p))).toEqual([false, true, true, true]);
	expect(laneStarts(state(2, 3))).toEqual([0, 1]);
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
