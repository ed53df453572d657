// nodes/MediaGenTrigger/claim.ts: what an unsigned delivery claims, and whether the service's record bears it out.
import { READ_BACK_MAX_AGE_MS, readClaim, recordDifference, sameJson } from '../../../../nodes/MediaGenTrigger/claim';
import { REMEMBER_MS } from '../../../../nodes/MediaGenTrigger/dedupe';
import type { RunRecord } from '../../../../nodes/shared/records';

const NOW = 1_800_000_000_000;
const record: RunRecord = {
	id: 'gen_1',
	kind: 'image',
	model: 'studio-image-v1',
	prompt: 'a lighthouse',
	options: { resolution: '1K', aspect: '1:1' },
	cost: 5,
	status: 'SUCCEEDED',
	error: null,
	createdAt: NOW - 60_000,
	outputs: [{ url: 'https://files.example/1.png', mime: 'image/png' }],
};
const raw = (value: unknown) => Buffer.from(JSON.stringify(value));
const without = (run: RunRecord, field: string) => Object.fromEntries(Object.entries(run).filter(([k]) => k !== field));

test('a claim needs the service webhook-id of its run and outcome, a delivered status and a recent createdAt', () => {
	expect(readClaim('msg_gen_1_succeeded', raw(record), NOW)).toEqual({
		runId: 'gen_1',
		webhookId: 'msg_gen_1_succeeded',
		body: record,
	});
	const problem = (id: string | undefined, body: unknown) =>
		(readClaim(id, raw(body), NOW) as { problem: string }).problem;
	expect(problem('msg_gen_1_failed', record)).toMatch(/webhook-id is not msg_gen_1_succeeded/);
	expect(problem('msg_gen_2_succeeded', record)).toMatch(/webhook-id is not/);
	expect(problem(undefined, record)).toMatch(/webhook-id is not/);
	expect(problem('msg_gen_1_canceled', { ...record, status: 'CANCELED' })).toMatch(/only succeeded and failed/);
	expect(problem('msg_gen_1_succeeded', { hello: 1 })).toMatch(/not a run record/);
	expect((readClaim('x', Buffer.from('{'), NOW) as { problem: string }).problem).toMatch(/not JSON/);
	const undated = without(record, 'createdAt');
	expect(problem('msg_gen_1_succeeded', undated)).toMatch(/no createdAt/);
	const old = { ...record, createdAt: NOW - READ_BACK_MAX_AGE_MS - 1 };
	expect(problem('msg_gen_1_succeeded', old)).toMatch(/began 36 h ago: .* only within 36 h/);
	expect(readClaim('msg_gen_1_succeeded', raw({ ...old, createdAt: old.createdAt + 2 }), NOW)).toHaveProperty('runId');
	expect(problem('msg_gen_1_succeeded', { ...record, createdAt: NOW + REMEMBER_MS })).toMatch(/future/);
	// A replay is taken only while the memory of the first acceptance (from the run's start on) still holds it.
	expect(READ_BACK_MAX_AGE_MS).toBeLessThan(REMEMBER_MS);
	expect(READ_BACK_MAX_AGE_MS).toBeGreaterThan((30 * 60 + 60 + 300 + 1800 + 7200 + 21_600 + 86_400) * 1000);
});

test('JSON equality: key order does not count, types and array order do', () => {
	expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
	expect(sameJson({ a: 5 }, { a: '5' })).toBe(false);
	expect(sameJson([1, 2], [2, 1])).toBe(false);
	expect(sameJson({ a: null }, {})).toBe(false);
	expect(sameJson({}, [])).toBe(false);
	expect(sameJson(null, {})).toBe(false);
});

test("the body must say every field of the record; only a failed run's body may add a fair refunded", () => {
	expect(recordDifference({ ...record }, record)).toBeUndefined();
	expect(recordDifference({ ...record, prompt: 'other' }, record)).toBe(`its "prompt" is not the service's`);
	expect(recordDifference(without(record, 'error'), record)).toBe('its body has no "error"');
	expect(recordDifference({ ...record, hack: 1 }, record)).toMatch(/has "hack", which the service's record/);
	expect(recordDifference({ ...record, refunded: 5 }, record)).toMatch(/has "refunded"/);
	const failed = { ...record, status: 'FAILED', error: 'model failed', outputs: [] };
	expect(recordDifference({ ...failed, refunded: 5 }, failed)).toBeUndefined();
	expect(recordDifference({ ...failed, refunded: 6 }, failed)).toMatch(/has "refunded"/);
	expect(recordDifference({ ...failed, refunded: '5' }, failed)).toMatch(/has "refunded"/);
	// Fields the service adds later are compared like any other.
	const grown = { ...record, seed: 7 } as RunRecord;
	expect(recordDifference({ ...record }, grown)).toBe('its body has no "seed"');
});
