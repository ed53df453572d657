// nodes/MediaGenTrigger/delivery.ts: a verified delivery read, filtered and shaped, without n8n.
import { outcomeOf, passesFilters, readDelivery, runItemJson } from '../../../../nodes/MediaGenTrigger/delivery';
import type { RunRecord } from '../../../../nodes/shared/records';
import { splitList } from '../../../../nodes/shared/fields';

const run: RunRecord = {
	id: 'gen_1',
	kind: 'image',
	model: 'studio-image-v1',
	prompt: 'a lighthouse',
	options: {},
	cost: 5,
	status: 'FAILED',
	error: 'provider failed',
	createdAt: 1,
	outputs: [],
};
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

test('outcomes: only FAILED is failed; CANCELED and others keep their own name', () => {
	expect(outcomeOf('SUCCEEDED')).toBe('succeeded');
	expect(outcomeOf('FAILED')).toBe('failed');
	expect(outcomeOf('CANCELED')).toBe('canceled');
});

test('a run record comes with its outcome; anything else is a test event carrying the body', () => {
	expect(readDelivery(json(run), 'msg_1')).toEqual({ run, outcome: 'failed' });
	expect(readDelivery(json({ ...run, status: 'CANCELED' }), 'msg_1')).toMatchObject({ outcome: 'canceled' });
	expect(readDelivery(json({ type: 'test' }), 'msg_2')).toEqual({
		testEvent: { testEvent: true, webhookId: 'msg_2', body: { type: 'test' } },
	});
	expect(readDelivery(Buffer.from('not json'), 'msg_3')).toEqual({
		testEvent: { testEvent: true, webhookId: 'msg_3', body: 'not json' },
	});
});

test('filters: an empty list lets everything through, each set one must match', () => {
	const none = { outcomes: [], kinds: [], models: [] };
	expect(passesFilters(run, 'failed', none)).toBe(true);
	expect(passesFilters(run, 'failed', { ...none, outcomes: ['succeeded'] })).toBe(false);
	expect(passesFilters(run, 'failed', { ...none, kinds: ['image', 'video'] })).toBe(true);
	expect(passesFilters(run, 'failed', { ...none, models: splitList(' other-model , studio-image-v1 ') })).toBe(true);
	expect(passesFilters(run, 'failed', { ...none, models: splitList('other-model') })).toBe(false);
});

test('the item: the record, the delivery id, the outcome, and the refund of a failed run', () => {
	expect(runItemJson(run, 'failed', 'msg_1')).toMatchObject({ id: 'gen_1', webhookId: 'msg_1', refunded: 5 });
	expect(runItemJson({ ...run, refunded: 3 }, 'failed', 'msg_1').refunded).toBe(3);
	expect(runItemJson({ ...run, status: 'SUCCEEDED' }, 'succeeded', 'msg_1')).not.toHaveProperty('refunded');
});

test('the item has a readable date beside createdAt, which stays as the service sent it', () => {
	const json = runItemJson({ ...run, createdAt: 1_795_000_000_000 }, 'failed', 'msg_1');
	expect(json).toMatchObject({ createdAt: 1_795_000_000_000, createdDate: '2026-11-18T11:06:40.000Z' });
});
