// nodes/MediaGen/pause/pauseState.ts: the record saved with a waiting execution, and the item position on a run's
// webhook URL.
import {
	itemWebhookUrl,
	pauseStateOf,
	positionFromQuery,
	requestBodyOf,
} from '../../../../../nodes/MediaGen/pause/pauseState';
import { pauseStateOf as state } from '../../../../helpers/pauseState';

test("the item position travels on the run's webhook URL beside n8n's token", () => {
	const url = itemWebhookUrl('https://n8n.example.com/webhook-waiting/42?signature=abc', 5);
	expect(url).toBe('https://n8n.example.com/webhook-waiting/42?signature=abc&mgItem=5');
	expect(positionFromQuery({ mgItem: '5' }, state(8, 3))).toBe(5);
	expect(positionFromQuery({ mgItem: '8' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({ mgItem: 'x' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({}, state(8, 3))).toBeUndefined();
});

test('a recorded batch is read back as saved (one string) and as older versions saved it (an object)', () => {
	expect(pauseStateOf(JSON.stringify(state(3, 2)))).toEqual(state(3, 2));
	expect(pauseStateOf(state(1, 1))).toEqual(state(1, 1));
});

test('anything else is not a recorded batch', () => {
	expect(pauseStateOf({ version: 2 })).toBeUndefined();
	expect(pauseStateOf(JSON.stringify({ version: 2 }))).toBeUndefined();
	expect(pauseStateOf('{not json')).toBeUndefined();
	expect(pauseStateOf(undefined)).toBeUndefined();
});

test("each item's webhook URL is built from the resume URL kept once; older records kept it in the body", () => {
	const resumeUrl = 'https://n8n.example.com/webhook-waiting/42?signature=abc';
	const recorded = { ...state(3, 1), resumeUrl };
	recorded.items[2].body = { prompt: 'owl', requestKey: 'k-2' };
	expect(requestBodyOf(recorded, 2)).toEqual({ prompt: 'owl', requestKey: 'k-2', webhookUrl: `${resumeUrl}&mgItem=2` });
	expect(recorded.items[2].body).not.toHaveProperty('webhookUrl');
	const older = state(3, 1);
	older.items[1].body = { prompt: 'cat', webhookUrl: `${resumeUrl}&mgItem=1` };
	expect(requestBodyOf(older, 1)).toEqual({ prompt: 'cat', webhookUrl: `${resumeUrl}&mgItem=1` });
});
