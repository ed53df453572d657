// fast-check generators of the property suite's cases: batches of 1 to 30 Generate or Run Look items of every kind
// (models, options, prices and apps read from the sandbox's catalogue), identical prompts, Request Keys typed, shared
// or per item, spending caps, time limits, Continue On Fail; accounts with low concurrency, runs holding slots and
// plan prices above the catalogue's; fault schedules on every route the node uses (submissions also cut unanswered
// and handled late) and, in pause mode, on the deliveries. Model ids are never written here: only the catalogue's
// data is.
import fc from 'fast-check';

import type { FaultKind, FaultRule, RateLimitStyle } from '../../sandbox/config';
import {
	apps,
	cataloguePrice,
	models,
	type AccountSpec,
	type BatchCase,
	type BatchSpec,
	type DeliveryAction,
	type GenerateSpec,
	type ItemSpec,
	type KeySpec,
	type RunLookSpec,
	type WaitMode,
} from './batchCase';

/** Models a text-only batch can run: a talking-avatar model needs an uploaded audio file. */
const runnable = models.filter((m) => !m.inputs.includes('audio'));
const modelsOf = (kind: string) => runnable.filter((m) => m.kind === kind);

const OPTION_KEYS = ['aspect', 'tier', 'resolution', 'duration', 'format', 'audio'] as const;

/**
 * Prompts shared by many items (identical requests). A troubled batch also has items whose run fails (refunded),
 * whose prompt moderation refuses, or whose prompt is empty (refused before anything is sent).
 */
const PROMPTS = ['a red fox in the snow', 'a quiet harbour at dawn', 'a paper boat', 'a lighthouse in fog'];
const plainPromptArb = fc.constantFrom(...PROMPTS);
const troubledPromptArb = fc.oneof(
	{ weight: 8, arbitrary: plainPromptArb },
	{ weight: 2, arbitrary: fc.constantFrom(...PROMPTS.map((p) => `${p} [fail]`)) },
	{ weight: 1, arbitrary: fc.constant('a forbidden picture') },
	{ weight: 1, arbitrary: fc.constant('') },
);

/** One model for every item, with options drawn from the values the catalogue allows. */
function oneModelArb(kind: 'image' | 'video'): fc.Arbitrary<GenerateSpec> {
	return fc.constantFrom(...modelsOf(kind)).chain((model) => {
		const choices = Object.fromEntries(
			OPTION_KEYS.filter((k) => Array.isArray(model.options[k])).map((k) => [
				k,
				fc.option(fc.constantFrom(...(model.options[k] as Array<string | number | boolean>)), {
					nil: undefined,
					freq: 2,
				}),
			]),
		);
		return fc.record(choices).map((picked) => ({
			operation: 'generate' as const,
			kind,
			model: model.id,
			options: Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined)) as GenerateSpec['options'],
		}));
	});
}

const musicArb: fc.Arbitrary<GenerateSpec> = fc.constantFrom(...modelsOf('music')).chain((model) =>
	fc.constantFrom(...(model.options.tier ?? ['Describe'])).map((musicMode) => ({
		operation: 'generate' as const,
		kind: 'music' as const,
		model: model.id,
		options: {},
		musicMode,
	})),
);

const perItemModelsArb = (kind: 'image' | 'video'): fc.Arbitrary<GenerateSpec> =>
	fc.constant({ operation: 'generate' as const, kind, options: {} });

const runLookArb: fc.Arbitrary<RunLookSpec> = fc.constantFrom(...apps).chain((app) =>
	fc
		.tuple(
			fc.constantFrom(...app.looks.map((l) => l.id)),
			fc.tuple(...app.inputs.map((slot) => fc.integer({ min: slot.min, max: slot.max })), fc.constant(0)),
		)
		.map(([look, counts]) => ({
			operation: 'runLook' as const,
			app: app.slug,
			look,
			photos: app.inputs
				.map((slot, i) => ({
					slotId: slot.id,
					urls: Array.from({ length: counts[i] }, (_, n) => `https://photos.example.test/${slot.id}-${n}.jpg`).join(
						',',
					),
				}))
				.filter((p) => p.urls),
		})),
);

const stepArb = fc.oneof(
	{ weight: 5, arbitrary: oneModelArb('image') },
	{ weight: 2, arbitrary: perItemModelsArb('image') },
	{ weight: 3, arbitrary: oneModelArb('video') },
	{ weight: 1, arbitrary: perItemModelsArb('video') },
	{ weight: 1, arbitrary: musicArb },
	{ weight: 2, arbitrary: runLookArb },
);

const keySpecArb: fc.Arbitrary<KeySpec> = fc.oneof(
	{ weight: 2, arbitrary: fc.constant({ mode: 'default' as const }) },
	{ weight: 2, arbitrary: fc.constant({ mode: 'shared' as const, value: 'batch_key' }) },
	{ weight: 1, arbitrary: fc.constant({ mode: 'perItem' as const }) },
);

/** 1 to 30, mostly small: length = 1 + 29 · u^2.5 for u uniform, so it shrinks towards 1. */
const lengthArb = fc.noBias(fc.integer({ min: 0, max: 1000 })).map((u) => 1 + Math.floor(29 * (u / 1000) ** 2.5));

function itemArb(step: GenerateSpec | RunLookSpec, keys: KeySpec, troubled: boolean): fc.Arbitrary<ItemSpec> {
	const perItemModel = step.operation === 'generate' && !step.model;
	const promptArb = troubled ? troubledPromptArb : plainPromptArb;
	return fc.record({
		prompt: step.operation === 'generate' ? promptArb : fc.constant(''),
		...(perItemModel ? { model: fc.constantFrom(...modelsOf(step.kind).map((m) => m.id)) } : {}),
		...(keys.mode === 'perItem' ? { key: fc.constantFrom('key_a', 'key_b', 'key_c', '') } : {}),
	}) as fc.Arbitrary<ItemSpec>;
}

/** A batch in one waiting mode; its cap is a share of its items' catalogue prices (0 to 150 %, mostly 60 to 110). */
export function batchArb(waitMode: WaitMode): fc.Arbitrary<BatchSpec> {
	const limits = waitMode === 'poll' ? [0, 0, 0.05, 0.2, 1, 2] : [0.05, 0.1, 0.25, 0.25, 0.5];
	return fc.tuple(stepArb, keySpecArb, fc.boolean()).chain(([step, requestKey, troubled]) =>
		fc
			.record({
				length: lengthArb,
				items: fc.array(itemArb(step, requestKey, troubled), { minLength: 30, maxLength: 30 }),
				capShare: fc.option(fc.oneof(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 60, max: 110 })), {
					nil: undefined,
					freq: 2,
				}),
				timeoutMinutes: fc.constantFrom(...limits),
				continueOnFail: fc.boolean(),
			})
			.map(({ length, items, capShare, timeoutMinutes, continueOnFail }) => {
				const batch: BatchSpec = {
					step,
					items: items.slice(0, length),
					requestKey,
					timeoutMinutes,
					waitMode,
					continueOnFail,
				};
				if (capShare !== undefined) {
					const total = batch.items.reduce((sum, _, i) => sum + cataloguePrice(batch, i), 0);
					batch.maxCredits = Math.round((total * capShare) / 100);
				}
				return batch;
			}),
	);
}

const accountArb = (batch: BatchSpec): fc.Arbitrary<AccountSpec> =>
	fc
		.record({
			concurrency: fc.constantFrom(1, 2, 3, 3, 5),
			holders: fc.constantFrom(0, 0, 0, 1, 2, 3),
			priceFactor: fc.constantFrom(1, 1, 1, 1.5, 2),
			tight: fc.option(fc.integer({ min: 30, max: 100 }), { nil: undefined, freq: 6 }),
		})
		.map(({ tight, ...account }) => {
			const total = batch.items.reduce((sum, _, i) => sum + cataloguePrice(batch, i), 0) * account.priceFactor;
			// Holders are house-engine videos (20 credits at the catalogue's price).
			const holders = account.holders * 20 * account.priceFactor;
			return { ...account, credits: tight === undefined ? 1_000_000 : Math.round(holders + (total * tight) / 100) };
		});

const styleArb = fc.constantFrom<RateLimitStyle>('retry-after-seconds', 'retry-after-date', 'reset-only');

function ruleArb(route: string, kinds: Array<FaultKind | 'ok'>, maxLength: number): fc.Arbitrary<FaultRule> {
	return fc.record({
		route: fc.constant(route),
		script: fc.array(fc.constantFrom(...kinds), { maxLength }),
		slowMs: fc.constantFrom(500, 3000, 12_000),
		retryAfterSeconds: fc.constantFrom(1, 2, 5),
		rateLimitStyle: styleArb,
	});
}

/**
 * When a "late" submission is handled: half the rules leave it to the sandbox (1 to 7 s of the service's time, so
 * 10 to 70 ms at the stage's time scale: before the node sends it again, and its key then returns the run); the
 * others set 1.5, 4 or 9 s on the node's clock (lateMs is scaled by 0.01), as a real service is late against a node
 * whose pauses are not scaled: after the node's next try (1 s, then 2, 4, 8 s), its 409 or 402, or its giving up.
 */
const lateMsArb = fc.option(fc.constantFrom(150_000, 400_000, 900_000), { nil: undefined, freq: 2 });

const OK3: Array<'ok'> = ['ok', 'ok', 'ok'];
const rulesArb: fc.Arbitrary<FaultRule[]> = fc
	.tuple(
		ruleArb(
			'POST /generations',
			[
				...OK3,
				'drop_after',
				'drop',
				'500',
				'502',
				'503',
				'429',
				'slow',
				'malformed',
				'drop_after',
				'late',
				'late',
				'409',
			],
			8,
		).chain((rule) => lateMsArb.map((lateMs) => (lateMs === undefined ? rule : { ...rule, lateMs }))),
		ruleArb('GET /generations/:id', [...OK3, 'drop', 'drop_after', '500', '503', '429', 'slow', '404', 'malformed'], 8),
		ruleArb('GET /me', ['ok', '500', 'drop', '429'], 2),
		ruleArb('GET /generations', ['ok', '500', '429'], 2),
		ruleArb('GET /models', ['ok', 'ok', 'ok', '500'], 1),
		ruleArb('GET /apps', ['ok', 'ok', 'ok', '500'], 1),
	)
	.map((rules) => rules.filter((r) => r.script!.some((step) => step !== 'ok')));

const DELIVERY_ACTIONS: DeliveryAction[] = [
	'pass',
	'pass',
	'pass',
	'refuse',
	'repeat',
	'reorder',
	'delay',
	'delayPastLimit',
	'delayPastTimer',
	'forgeStatus',
	'forgeId',
	'misroute',
	'restart',
	'otherProcess',
];

/** A whole case in one waiting mode: the batch, the account and the faults. */
export function caseArb(waitMode: WaitMode): fc.Arbitrary<BatchCase> {
	return batchArb(waitMode).chain((batch) =>
		fc.record({
			batch: fc.constant(batch),
			account: accountArb(batch),
			faults: fc.record({
				rules: rulesArb,
				deliveries:
					waitMode === 'pause' ? fc.array(fc.constantFrom(...DELIVERY_ACTIONS), { maxLength: 8 }) : fc.constant([]),
			}),
		}),
	);
}
