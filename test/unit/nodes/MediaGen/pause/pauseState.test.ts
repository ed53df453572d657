// nodes/MediaGen/pause/pauseState.ts: the record saved with a waiting execution, and the item position on a run's
// webhook URL.
import { isPauseState, itemWebhookUrl, positionFromQuery } from '../../../../../nodes/MediaGen/pause/pauseState';
import { pauseStateOf as state } from '../../../../helpers/pauseState';

test("the item position travels on the run's webhook URL beside n8n's token", () => {
	const url = itemWebhookUrl('https://n8n.example.com/webhook-waiting/42?signature=abc', 5);
	expect(url).toBe('https://n8n.example.com/webhook-waiting/42?signature=abc&mgItem=5');
	expect(positionFromQuery({ mgItem: '5' }, state(8, 3))).toBe(5);
	expect(positionFromQuery({ mgItem: '8' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({ mgItem: 'x' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({}, state(8, 3))).toBeUndefined();
});

test('a recorded batch is recognised, anything else is not', () => {
	expect(isPauseState(state(1, 1))).toBe(true);
	expect(isPauseState({ version: 2 })).toBe(false);
	expect(isPauseState(undefined)).toBe(false);
});
