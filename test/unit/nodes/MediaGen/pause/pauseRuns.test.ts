// nodes/MediaGen/pause/pauseRuns.ts: where the service could call a paused execution back, and what n8n's own timer
// passes on when no delivery resumed the batch.
import { resumeUrlProblem, TIMER_ERROR, timerOutcomeItems } from '../../../../../nodes/MediaGen/pause/pauseRuns';
import { pauseStateOf as state } from '../../../../helpers/pauseState';

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
