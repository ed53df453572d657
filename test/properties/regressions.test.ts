// The property suite's counterexamples as plain cases (issue 41): each was found by poll.test.ts, pause.test.ts or
// the soak and shrunk by fast-check (seed and path given where the shrunk case replays exactly), then cut down by
// hand to the faults that matter, so it fails the same way on every run. Each must keep every money rule.
import { WARP } from './warpClock';
import type { BatchCase, BatchSpec, DeliveryAction } from './batchCase';
import type { FaultRule } from '../../sandbox/config';
import { describeFailure } from './moneyProperty';
import { runCase } from './runCase';

async function expectRulesKept(c: BatchCase): Promise<void> {
	const report = await runCase(c);
	if (report.violations.length) throw new Error(describeFailure(c, report));
}

const same = (count: number, prompt = 'a paper boat') => Array.from({ length: count }, () => ({ prompt }));
const plenty = { concurrency: 3, holders: 0, priceFactor: 1, credits: 1_000_000 };
const posts = (...script: FaultRule['script'] & unknown[]): FaultRule => ({ route: 'POST /generations', script });

function batch(over: Partial<BatchSpec>): BatchSpec {
	return {
		step: { operation: 'generate', kind: 'image', model: 'studio-image-v1', options: {} },
		items: same(2),
		requestKey: { mode: 'default' },
		timeoutMinutes: 0.05,
		waitMode: 'poll',
		continueOnFail: false,
		...over,
	};
}

const deliveries = (...actions: DeliveryAction[]) => actions;

describe(`poll mode (clock ×${WARP})`, () => {
	test('a stopped batch names the runs it paid for with their request keys (41.2; seed 20261127, path "6:0:0:1:2:0:0:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:2:0:2:0:3:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1")', async () => {
		await expectRulesKept({
			batch: batch({
				items: same(2, 'a red fox in the snow'),
				requestKey: { mode: 'shared', value: 'batch_key' },
				timeoutMinutes: 0,
			}),
			account: { ...plenty, concurrency: 1, credits: 5 },
			faults: { rules: [], deliveries: [] },
		});
	});

	test('a stopped batch names an item whose answer was lost, with its request key (41.2)', async () => {
		await expectRulesKept({
			batch: batch({}),
			account: { ...plenty, concurrency: 2 },
			faults: { rules: [posts(...Array.from({ length: 12 }, () => 'drop_after' as const))], deliveries: [] },
		});
	});

	test('a refusal after a lost answer does not say "nothing was charged" (41.5 in Poll mode; seed 20261127, path "69")', async () => {
		await expectRulesKept({
			batch: batch({ items: same(1), timeoutMinutes: 1 }),
			account: plenty,
			faults: { rules: [posts('drop_after', '503')], deliveries: [] },
		});
	});

	test('a lost answer still counts against the cap (41.3; seed 20261127, path "4")', async () => {
		await expectRulesKept({
			batch: batch({ items: same(6), maxCredits: 25, continueOnFail: true }),
			account: { ...plenty, concurrency: 1 },
			faults: { rules: [posts('ok', ...Array.from({ length: 5 }, () => 'drop_after' as const))], deliveries: [] },
		});
	});

	test('a run of unknown price sent alone under a cap, its answer lost: following the advice brings it back (seed 20261215, path "158")', async () => {
		await expectRulesKept({
			batch: batch({
				step: {
					operation: 'generate',
					kind: 'image',
					model: 'pixelforge-ultra',
					options: { aspect: '16:9', tier: 'ultra', resolution: '4K', format: 'WEBP' },
				},
				items: same(4, 'a red fox in the snow'),
				requestKey: { mode: 'shared', value: 'batch_key' },
				continueOnFail: true,
				maxCredits: 2,
			}),
			account: { ...plenty, concurrency: 1 },
			faults: { rules: [{ ...posts('500', 'drop_after', 'drop_after'), slowMs: 500 }], deliveries: [] },
		});
	});

	test('following the advice under a cap, runs paid for earlier come back before new runs use the cap up (seed 20261128, path "67:73:1:1:9:14:14")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', options: {} },
				items: [
					{ prompt: 'a lighthouse in fog [fail]', model: 'auralis-canvas' },
					{ prompt: 'a red fox in the snow', model: 'vertex-typo' },
					{ prompt: 'a red fox in the snow', model: 'pixelforge-ultra' },
					{ prompt: 'a lighthouse in fog', model: 'studio-image-v1' },
					{ prompt: 'a quiet harbour at dawn [fail]', model: 'nimbus-xl' },
					{ prompt: 'a red fox in the snow', model: 'orchid-portrait' },
					{ prompt: 'a lighthouse in fog', model: 'auralis-canvas' },
				],
				requestKey: { mode: 'shared', value: 'batch_key' },
				continueOnFail: true,
				maxCredits: 57,
			}),
			account: { ...plenty, concurrency: 1, priceFactor: 1.5 },
			faults: { rules: [{ ...posts('ok', 'ok', 'drop', 'malformed', 'drop'), slowMs: 500 }], deliveries: [] },
		});
	});

	// Its first failure needed the machine's timing (items 2 and 3 out of time behind 429s); the unit test "an item whose
	// typed key may return an earlier run …" in spendingCap.test.ts holds the rule without it.
	test('following the advice under a cap, a like item that gets a new run does not use up the paid run of another (seed 20261129, path "284")', async () => {
		await expectRulesKept({
			batch: batch({
				step: {
					operation: 'generate',
					kind: 'image',
					model: 'auralis-canvas-mini',
					options: { aspect: '1:1', format: 'WEBP' },
				},
				items: [
					{ prompt: 'a lighthouse in fog', key: 'key_b' },
					{ prompt: 'a paper boat', key: 'key_c' },
					{ prompt: 'a quiet harbour at dawn', key: 'key_c' },
					{ prompt: 'a quiet harbour at dawn', key: 'key_a' },
					{ prompt: 'a lighthouse in fog', key: '' },
					{ prompt: 'a red fox in the snow', key: '' },
					{ prompt: 'a lighthouse in fog', key: 'key_a' },
					{ prompt: 'a paper boat', key: '' },
					{ prompt: 'a paper boat', key: 'key_c' },
					{ prompt: 'a quiet harbour at dawn', key: 'key_a' },
					{ prompt: 'a red fox in the snow', key: '' },
				],
				requestKey: { mode: 'perItem' },
				continueOnFail: true,
				maxCredits: 14,
			}),
			account: plenty,
			faults: {
				rules: [
					{
						...posts('429', '429', '429', 'drop_after'),
						slowMs: 500,
						retryAfterSeconds: 2,
						rateLimitStyle: 'retry-after-date',
					},
				],
				deliveries: [],
			},
		});
	});

	test('following the advice, a run returned for a key sent before does not count against the cap again (41.3; seed 777003, path "57:53:1:1:4:10:16:15:15")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', model: 'nimbus-xl', options: { resolution: '1K' } },
				items: [
					...same(2),
					{ prompt: 'a red fox in the snow' },
					{ prompt: 'a lighthouse in fog' },
					{ prompt: 'a red fox in the snow' },
				],
				continueOnFail: true,
				maxCredits: 56,
			}),
			account: plenty,
			faults: {
				rules: [
					{ ...posts('drop', 'drop', 'ok', 'drop_after', '503'), slowMs: 500, retryAfterSeconds: 1 },
					{ route: 'GET /generations/:id', script: ['slow'], slowMs: 12_000 },
					{ route: 'GET /me', script: ['500', '429'], slowMs: 12_000, retryAfterSeconds: 1 },
				],
				deliveries: [],
			},
		});
	});

	test('following "put this key in Request Key and run this step again" charges nothing more (41.1)', async () => {
		await expectRulesKept({
			batch: batch({ requestKey: { mode: 'shared', value: 'batch_key' }, continueOnFail: true }),
			account: { ...plenty, concurrency: 1 },
			faults: { rules: [posts('ok', ...Array.from({ length: 5 }, () => 'drop_after' as const))], deliveries: [] },
		});
	});

	test('a time-limit error on a charged run does not quote "nothing was charged" from a failed read', async () => {
		await expectRulesKept({
			batch: batch({ items: same(1) }),
			account: plenty,
			faults: {
				rules: [{ route: 'GET /generations/:id', script: Array.from({ length: 12 }, () => '500' as const) }],
				deliveries: [],
			},
		});
	});
});

describe(`poll mode, prices twice the catalogue's (clock ×${WARP})`, () => {
	test('lost answers under the cap are counted at the price the runs of the step really cost (soak seed 20261129, path "2063")', async () => {
		// The catalogue said 10 credits, the runs cost 20: two lost answers counted at 10 let a fifth run through.
		await expectRulesKept({
			batch: batch({
				step: {
					operation: 'generate',
					kind: 'image',
					model: 'kestrel-edit',
					options: { resolution: '1K', format: 'PNG' },
				},
				items: [
					{ prompt: 'a lighthouse in fog' },
					{ prompt: 'a red fox in the snow' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a paper boat' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a red fox in the snow' },
					{ prompt: 'a red fox in the snow' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a lighthouse in fog' },
					{ prompt: 'a red fox in the snow' },
					{ prompt: 'a paper boat' },
					{ prompt: 'a lighthouse in fog' },
				],
				continueOnFail: true,
				maxCredits: 77,
			}),
			account: { concurrency: 1, holders: 0, priceFactor: 2, credits: 1_000_000 },
			faults: {
				rules: [
					{
						route: 'POST /generations',
						script: ['ok', 'slow', 'late', 'drop', '500', 'late', '429'],
						slowMs: 3000,
						retryAfterSeconds: 1,
						rateLimitStyle: 'retry-after-seconds',
						lateMs: 150000,
					},
					{
						route: 'GET /generations/:id',
						script: ['500', 'ok', '404', 'ok', 'drop', '500'],
						slowMs: 3000,
						retryAfterSeconds: 2,
						rateLimitStyle: 'retry-after-date',
					},
					{
						route: 'GET /me',
						script: ['429', 'drop'],
						slowMs: 3000,
						retryAfterSeconds: 5,
						rateLimitStyle: 'reset-only',
					},
					{
						route: 'GET /apps',
						script: ['500'],
						slowMs: 3000,
						retryAfterSeconds: 5,
						rateLimitStyle: 'retry-after-seconds',
					},
				] as FaultRule[],
				deliveries: [],
			},
		});
	});
});

describe(`pause mode (clock ×${WARP})`, () => {
	test("plan prices above the catalogue's: ten 20-credit videos under a cap of 200 are not charged 300 (41.4)", async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'video', model: 'studio-video-v1', options: {} },
				items: same(10),
				maxCredits: 200,
				timeoutMinutes: 0.5,
				waitMode: 'pause',
			}),
			account: { ...plenty, priceFactor: 1.5 },
			faults: { rules: [], deliveries: [] },
		});
	});

	test('plan prices at twice the catalogue\'s: the house image engine under a cap of 25 (41.4; seed 20261128, path "4:0:0:0:0:4:1:1:0:0:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:4:1:2:5:2:0:1:1:1:1:1:1:1:1:1:1:1:1:1:1")', async () => {
		await expectRulesKept({
			batch: batch({
				items: [{ prompt: 'a forbidden picture' }, ...same(6, 'a red fox in the snow')],
				requestKey: { mode: 'shared', value: 'batch_key' },
				maxCredits: 25,
				waitMode: 'pause',
				continueOnFail: true,
			}),
			account: { ...plenty, concurrency: 1, priceFactor: 2 },
			faults: { rules: [], deliveries: [] },
		});
	});

	test('following "Request Key set to the requestKey here" after n8n\'s timer charges nothing more (41.1; seed 20261128, path "4")', async () => {
		await expectRulesKept({
			batch: batch({ requestKey: { mode: 'shared', value: 'batch_key' }, waitMode: 'pause' }),
			account: plenty,
			faults: { rules: [], deliveries: deliveries(...Array.from({ length: 8 }, () => 'delayPastTimer' as const)) },
		});
	});

	test('a resume call\'s submission whose answer was lost is not "Not submitted … nothing was charged" (41.5)', async () => {
		await expectRulesKept({
			batch: batch({ waitMode: 'pause', continueOnFail: true }),
			account: { ...plenty, concurrency: 1 },
			faults: { rules: [posts('ok', ...Array.from({ length: 16 }, () => 'drop_after' as const))], deliveries: [] },
		});
	});

	test('signatures refused until the limit, n8n restarted: a set-up submission whose answer was lost is named (41.2; seed 777001, path "26")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', model: 'vertex-typo', options: { resolution: '1K' } },
				items: [{ prompt: 'a paper boat' }, { prompt: 'a lighthouse in fog' }, ...same(2, 'a red fox in the snow')],
				timeoutMinutes: 0.5,
				waitMode: 'pause',
				continueOnFail: true,
				maxCredits: 24,
			}),
			account: { concurrency: 3, holders: 3, priceFactor: 1, credits: 79 },
			faults: {
				rules: [
					{
						...posts('429', 'malformed', '429', 'drop_after', 'malformed', 'drop_after', '503', 'malformed'),
						slowMs: 12_000,
						retryAfterSeconds: 2,
						rateLimitStyle: 'reset-only',
					},
					{ route: 'GET /generations/:id', script: ['malformed', 'drop_after', 'drop', 'ok'], slowMs: 12_000 },
					{ route: 'GET /generations', script: ['500'], slowMs: 3_000, retryAfterSeconds: 5 },
				],
				deliveries: deliveries('refuse', 'forgeStatus', 'restart', 'forgeId'),
			},
		});
	});

	test('a refusal after a lost answer before the pause does not say "nothing was charged"', async () => {
		await expectRulesKept({
			batch: batch({ items: same(1), timeoutMinutes: 0.5, waitMode: 'pause' }),
			account: plenty,
			faults: { rules: [posts('drop_after', '503')], deliveries: [] },
		});
	});

	test('a failed run stops the batch: the runs paid for are named with their request keys (41.2)', async () => {
		await expectRulesKept({
			batch: batch({
				items: [{ prompt: 'a paper boat' }, { prompt: 'a paper boat [fail]' }],
				waitMode: 'pause',
				timeoutMinutes: 0.5,
			}),
			account: plenty,
			faults: { rules: [], deliveries: [] },
		});
	});

	// A restarted process re-sends keys to learn what was sent; the old process may still be sending the same key.
	test('n8n restarted while a key was on its way: a busy answer to the re-sent key is not "never sent" (41.5; seed 20261203, path "257:112:0:10:6")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', options: {} },
				items: [
					{ prompt: 'a quiet harbour at dawn', model: 'vertex-typo', key: 'key_b' },
					{ prompt: 'a lighthouse in fog', model: 'studio-image-v1', key: 'key_a' },
					{ prompt: 'a paper boat', model: 'nimbus-xl', key: 'key_b' },
					{ prompt: 'a lighthouse in fog', model: 'auralis-canvas-mini', key: 'key_b' },
					{ prompt: 'a red fox in the snow', model: 'orchid-portrait', key: 'key_b' },
					{ prompt: 'a paper boat', model: 'pixelforge-sketch', key: 'key_b' },
				],
				requestKey: { mode: 'perItem' },
				timeoutMinutes: 0.25,
				waitMode: 'pause',
				continueOnFail: true,
				maxCredits: 200,
			}),
			account: { ...plenty, concurrency: 1 },
			faults: {
				rules: [
					{ ...posts('ok', 'drop_after', 'drop'), slowMs: 500 },
					{ route: 'GET /generations/:id', script: ['ok', 'ok', 'malformed'], slowMs: 500 },
					{ route: 'GET /generations', script: ['500'], slowMs: 12_000, retryAfterSeconds: 5 },
				],
				deliveries: deliveries('pass', 'restart', 'delayPastLimit', 'pass', 'forgeStatus', 'forgeId', 'forgeId'),
			},
		});
	});

	// A finding of the suite's own rule 2: following "Request Key as it is" re-sends the first execution's keys, and
	// getting those runs back is the advice working, not another execution's run taken.
	test('per-item keys, advice "as it is": the follow-up gets the first runs back (seed 20261128, path "142")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', model: 'studio-image-v1', options: {} },
				items: [
					{ prompt: 'a red fox in the snow', key: 'key_a' },
					{ prompt: 'a red fox in the snow', key: 'key_b' },
				],
				requestKey: { mode: 'perItem' },
				timeoutMinutes: 0.5,
				waitMode: 'pause',
				continueOnFail: true,
			}),
			account: { ...plenty, concurrency: 1 },
			faults: { rules: [posts('drop', '500', 'slow', '502')], deliveries: [] },
		});
	});

	// Found by the suite once deliveries could be shared by two processes (queue mode's webhook processes): the one
	// that paused called an item never sent (nothing charged) that the other process had sent (pause/batchWalk.ts
	// confirmUnsent).
	test('two webhook processes share the deliveries: no item is called never sent that the other sent (seed 20261203, path "103:81:8:3:10:2:9:4:2")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', options: {} },
				items: [
					{ prompt: 'a paper boat', model: 'kestrel-photo' },
					{ prompt: 'a lighthouse in fog', model: 'auralis-canvas-mini' },
					{ prompt: 'a red fox in the snow', model: 'auralis-canvas' },
					{ prompt: 'a quiet harbour at dawn', model: 'auralis-canvas' },
					{ prompt: 'a red fox in the snow', model: 'auralis-canvas' },
					{ prompt: 'a red fox in the snow', model: 'nimbus-anime' },
					{ prompt: 'a red fox in the snow', model: 'auralis-canvas-mini' },
					{ prompt: 'a red fox in the snow', model: 'nimbus-anime' },
					{ prompt: 'a red fox in the snow', model: 'orchid-portrait' },
					{ prompt: 'a quiet harbour at dawn', model: 'vertex-typo' },
					{ prompt: 'a lighthouse in fog', model: 'auralis-canvas-mini' },
					{ prompt: 'a lighthouse in fog', model: 'studio-image-v1' },
					{ prompt: 'a lighthouse in fog', model: 'pixelforge-sketch' },
					{ prompt: 'a quiet harbour at dawn', model: 'kestrel-edit' },
					{ prompt: 'a paper boat', model: 'studio-image-v1' },
					{ prompt: 'a paper boat', model: 'pixelforge-sketch' },
					{ prompt: 'a paper boat', model: 'vertex-typo' },
					{ prompt: 'a red fox in the snow', model: 'lumora-image-2-fast' },
					{ prompt: 'a lighthouse in fog', model: 'vertex-logo' },
					{ prompt: 'a quiet harbour at dawn', model: 'auralis-canvas-mini' },
					{ prompt: 'a quiet harbour at dawn', model: 'auralis-canvas-mini' },
					{ prompt: 'a red fox in the snow', model: 'vertex-typo' },
					{ prompt: 'a quiet harbour at dawn', model: 'vertex-logo' },
					{ prompt: 'a red fox in the snow', model: 'vertex-logo' },
					{ prompt: 'a paper boat', model: 'kestrel-edit' },
				],
				requestKey: { mode: 'default' },
				timeoutMinutes: 0.1,
				waitMode: 'pause',
				continueOnFail: false,
			}),
			account: { ...plenty, concurrency: 5, priceFactor: 2 },
			faults: {
				rules: [],
				deliveries: deliveries('reorder', 'otherProcess', 'pass', 'misroute', 'repeat', 'misroute'),
			},
		});
	});

	// Seen once under load (seed 1, path "141": a run charged after a 402 did not appear in the output; the replay
	// passed), made by hand to the same interleaving: with two webhook processes, one was refused an item for want
	// of credits (402, nothing charged); a refund freed credits and the other process sent the same key and was
	// charged; the first built the output from its memory, "Not enough credits … Nothing was charged"
	// (pause/batchWalk.ts confirmUnsent). It depends on which process each delivery reaches, and when: the first run
	// in a process shows it every time (later runs about one in four), so the case runs four times in turn.
	test('two webhook processes: an item refused for want of credits that the other process sent after a refund is not "nothing was charged" (seed 1, path "141")', async () => {
		const c: BatchCase = {
			batch: batch({
				step: { operation: 'generate', kind: 'video', model: 'kestrel-move-fast', options: {} },
				items: [
					{ prompt: 'a paper boat' },
					{ prompt: 'a lighthouse in fog' },
					{ prompt: 'a red fox in the snow [fail]' },
					{ prompt: 'a quiet harbour at dawn' },
					{ prompt: 'a red fox in the snow' },
				],
				timeoutMinutes: 1,
				waitMode: 'pause',
				continueOnFail: true,
			}),
			// Three runs' worth: two sent at the pause, the third (it fails) once the first is over; the fourth then
			// finds no credits until the third is refunded.
			account: { concurrency: 2, holders: 0, priceFactor: 1, credits: 390 },
			faults: { rules: [], deliveries: deliveries('otherProcess') },
		};
		for (let run = 0; run < 4; run++) await expectRulesKept(c);
	}, 300_000);

	// Found once a second process could take deliveries (the cases generated changed): a pause-mode follow-up of
	// the advice counted the runs its keys brought back (charged by the first execution) against its own cap, and
	// refused the item whose run it was meant to bring back (pause/pauseCap.ts, pauseRuns.ts, batchWalk.ts).
	test('advice followed under a cap: runs brought back by their keys cost this execution nothing (seed 20261128, path "97")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'runLook', app: 'birthday-song', look: 'pop', photos: [] },
				items: Array.from({ length: 10 }, () => ({ prompt: '' })),
				requestKey: { mode: 'default' },
				timeoutMinutes: 0.25,
				waitMode: 'pause',
				continueOnFail: true,
				maxCredits: 516,
			}),
			account: { concurrency: 3, holders: 0, priceFactor: 1.5, credits: 900 },
			faults: {
				rules: [
					{
						...posts('503', '500', '429', 'drop', 'ok', 'slow'),
						slowMs: 3000,
						retryAfterSeconds: 1,
						rateLimitStyle: 'retry-after-date',
					},
					{
						route: 'GET /generations/:id',
						script: ['malformed'],
						slowMs: 12_000,
						retryAfterSeconds: 5,
						rateLimitStyle: 'retry-after-date',
					},
					{
						route: 'GET /me',
						script: ['drop'],
						slowMs: 12_000,
						retryAfterSeconds: 1,
						rateLimitStyle: 'retry-after-date',
					},
				],
				deliveries: deliveries('restart', 'forgeStatus', 'refuse', 'misroute', 'reorder', 'otherProcess'),
			},
		});
	});

	test('a run this process sent was delivered to another process: it is read, so the batch does not wait for n8n\'s timer (seed 777, path "885")', async () => {
		await expectRulesKept({
			batch: batch({
				step: {
					operation: 'generate',
					kind: 'video',
					model: 'auralis-loop',
					options: { aspect: '9:16', resolution: '1080p', duration: 6 },
				},
				items: [
					{ prompt: 'a paper boat' },
					{ prompt: 'a red fox in the snow [fail]' },
					{ prompt: 'a lighthouse in fog [fail]' },
					...same(2),
					{ prompt: 'a red fox in the snow' },
					...same(2),
				],
				timeoutMinutes: 0.5,
				waitMode: 'pause',
			}),
			account: { concurrency: 1, holders: 0, priceFactor: 2, credits: 1955 },
			faults: {
				rules: [
					{ route: 'GET /generations/:id', script: ['429'], retryAfterSeconds: 1, rateLimitStyle: 'reset-only' },
					{ route: 'GET /generations', script: ['429', '500'], retryAfterSeconds: 2 },
				],
				deliveries: deliveries('delay', 'refuse', 'otherProcess'),
			},
		});
	});

	test('an item refused here by the cap but sent by another process is not called uncharged (soak seed 777, path "2446")', async () => {
		// Two processes decide on the costs each knows: the one building the output held item 8 back for the cap while
		// the other, to which a delivery went, sent it. The output must name its key as maybe charged.
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'video', options: {} },
				items: [
					{ prompt: 'a paper boat [fail]', model: 'kestrel-move', key: 'key_a' },
					{ prompt: 'a paper boat [fail]', model: 'lumora-motion-3', key: 'key_a' },
					{ prompt: 'a red fox in the snow [fail]', model: 'helix-world', key: 'key_a' },
					{ prompt: '', model: 'pixelforge-cinema-lite', key: 'key_b' },
					{ prompt: 'a red fox in the snow', model: 'studio-video-v1', key: 'key_a' },
					{ prompt: 'a paper boat', model: 'studio-video-v1', key: 'key_a' },
					{ prompt: 'a lighthouse in fog', model: 'vertex-explainer', key: '' },
					{ prompt: 'a paper boat', model: 'pixelforge-cinema', key: 'key_b' },
				],
				requestKey: { mode: 'perItem' },
				timeoutMinutes: 0.5,
				waitMode: 'pause',
				continueOnFail: true,
				maxCredits: 1406,
			}),
			account: { concurrency: 2, holders: 0, priceFactor: 2, credits: 1924 },
			faults: {
				rules: [
					{ ...posts('malformed'), slowMs: 3000, retryAfterSeconds: 5, rateLimitStyle: 'retry-after-seconds' },
					{ route: 'GET /generations/:id', script: ['ok', 'drop_after', 'drop_after'], slowMs: 12000 },
					{ route: 'GET /me', script: ['500', '500'] },
					{ route: 'GET /generations', script: ['500', 'ok'], slowMs: 12000 },
					{ route: 'GET /apps', script: ['500'] },
				],
				deliveries: deliveries('otherProcess', 'delayPastTimer', 'pass', 'forgeStatus', 'pass'),
			},
		});
	});

	test('a stop for refused signatures names the runs another process sent (soak seed 777, path "1031")', async () => {
		await expectRulesKept({
			batch: batch({
				step: { operation: 'generate', kind: 'image', model: 'kestrel-edit', options: { resolution: '1K' } },
				items: [
					{ prompt: 'a quiet harbour at dawn', key: 'key_c' },
					{ prompt: 'a red fox in the snow', key: 'key_b' },
					{ prompt: 'a lighthouse in fog', key: 'key_a' },
					{ prompt: 'a quiet harbour at dawn', key: '' },
					{ prompt: 'a paper boat', key: 'key_b' },
					{ prompt: 'a forbidden picture', key: 'key_c' },
					{ prompt: 'a paper boat', key: 'key_b' },
					{ prompt: 'a quiet harbour at dawn', key: 'key_b' },
					{ prompt: 'a quiet harbour at dawn', key: '' },
					{ prompt: '', key: 'key_b' },
					{ prompt: 'a paper boat', key: 'key_c' },
					{ prompt: 'a paper boat', key: '' },
				],
				requestKey: { mode: 'perItem' },
				timeoutMinutes: 0.25,
				waitMode: 'pause',
				continueOnFail: true,
				maxCredits: 90,
			}),
			account: { concurrency: 2, holders: 3, priceFactor: 1.5, credits: 259 },
			faults: {
				rules: [
					{ ...posts('429', 'ok', '500'), slowMs: 3000, retryAfterSeconds: 5, rateLimitStyle: 'retry-after-date' },
					{ route: 'GET /generations/:id', script: ['drop', '503', 'malformed', 'drop_after'], slowMs: 500 },
					{ route: 'GET /me', script: ['drop', 'ok'] },
				],
				deliveries: deliveries('otherProcess', 'delayPastLimit', 'pass', 'forgeId', 'forgeId'),
			},
		});
	});
});
