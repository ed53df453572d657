// nodes/MediaGen/pause/timerOutcome.ts: what n8n's own timer passes on when no delivery resumed the batch.
import { TIMER_ERROR, timerOutcomeItems } from '../../../../../nodes/MediaGen/pause/timerOutcome';
import { pauseStateOf as state } from '../../../../helpers/pauseState';

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
