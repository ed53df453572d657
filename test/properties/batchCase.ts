// One generated case of the property suite, as plain JSON (so a counterexample reads as it is): a batch of Generate
// or Run Look items, the account it runs on and the faults injected around it. Also what the case means to the
// node (its parameters and input items) and to the checks (what each item asks for, the catalogue prices).
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FaultRule } from '../../sandbox/config';
import appsData from '../../sandbox/data/apps.json';
import type { Model } from '../../sandbox/types';
import { catalogue } from '../helpers/catalogue';
import { generateParameters } from '../helpers/generate';

export type WaitMode = 'poll' | 'pause';

/** One input item: its prompt, and where the batch says so its own model and Request Key (expressions read them). */
export interface ItemSpec {
	prompt: string;
	model?: string;
	key?: string;
}

export type KeySpec = { mode: 'default' } | { mode: 'shared'; value: string } | { mode: 'perItem' };

export interface GenerateSpec {
	operation: 'generate';
	kind: 'image' | 'video' | 'music';
	/** One model for every item; absent: each item names its own (`={{ $json.model }}`), at default options. */
	model?: string;
	/** The Options resource mapper's values (one model only). */
	options: Record<string, string | number | boolean>;
	musicMode?: string;
}

export interface RunLookSpec {
	operation: 'runLook';
	app: string;
	look: string;
	/** Photos per slot, as public https addresses (the service takes them without an upload). */
	photos: Array<{ slotId: string; urls: string }>;
}

export interface BatchSpec {
	step: GenerateSpec | RunLookSpec;
	items: ItemSpec[];
	requestKey: KeySpec;
	/** Additional Fields → Max Credits per Execution; absent: no cap. */
	maxCredits?: number;
	/** Waiting → Time Limit (Minutes); 0: the kind's default. */
	timeoutMinutes: number;
	waitMode: WaitMode;
	continueOnFail: boolean;
}

export interface AccountSpec {
	concurrency: number;
	/** Runs of the account already going when the batch starts (they hold slots: 409 busy). */
	holders: number;
	/** The plan's prices against the catalogue's. */
	priceFactor: number;
	credits: number;
}

/** What the relay in front of the waiting executions does to each delivery, in the order they arrive. */
export type DeliveryAction =
	| 'pass'
	| 'refuse'
	| 'repeat'
	| 'reorder'
	| 'delay'
	| 'delayPastLimit'
	| 'delayPastTimer'
	| 'forgeStatus'
	| 'forgeId'
	| 'misroute'
	| 'restart'
	| 'otherProcess';

export interface FaultSpec {
	rules: FaultRule[];
	deliveries: DeliveryAction[];
}

export interface BatchCase {
	batch: BatchSpec;
	account: AccountSpec;
	faults: FaultSpec;
}

export const models = catalogue as unknown as Model[];
export const apps = appsData.apps as unknown as Array<{
	slug: string;
	inputs: Array<{ id: string; min: number; max: number }>;
	looks: Array<{ id: string; prompt: string; model: string; options: Record<string, unknown> }>;
}>;

export const modelById = (id: string): Model => {
	const model = models.find((m) => m.id === id);
	if (!model) throw new Error(`no model ${id} in the sandbox's catalogue`);
	return model;
};

/** What item `i` asks the service for (model and prompt), as the checks compare it with the run it got. */
export function requestOf(batch: BatchSpec, i: number): { model: string; prompt: string } {
	const { step } = batch;
	if (step.operation === 'runLook') {
		const look = apps.find((a) => a.slug === step.app)!.looks.find((l) => l.id === step.look)!;
		return { model: look.model, prompt: look.prompt };
	}
	return { model: step.model ?? batch.items[i].model ?? '', prompt: batch.items[i].prompt };
}

/** The catalogue's price of item `i`'s model at its defaults (what the generators size caps and credits by). */
export function cataloguePrice(batch: BatchSpec, i: number): number {
	return modelById(requestOf(batch, i).model).credits_at_defaults;
}

/** The input items: each carries its prompt, and its model and key where the batch reads them per item. */
export function inputItems(batch: BatchSpec): INodeExecutionData[] {
	return batch.items.map((item) => ({ json: { ...item } as IDataObject }));
}

/** The Request Key field as the user filled it in: empty, one typed value, or an expression per item. */
function typedKey(spec: KeySpec, override?: string): string | undefined {
	if (override !== undefined) return override;
	if (spec.mode === 'shared') return spec.value;
	if (spec.mode === 'perItem') return '={{ $json.key }}';
	return undefined;
}

/**
 * The step's parameters as the editor would store them. `requestKeyOverride` is a Request Key typed in by a user
 * who follows a message's advice (the rest of the step unchanged).
 */
export function stepParameters(batch: BatchSpec, requestKeyOverride?: string): IDataObject {
	const key = typedKey(batch.requestKey, requestKeyOverride);
	const fields: IDataObject = {};
	if (batch.maxCredits !== undefined) fields.maxCredits = batch.maxCredits;
	if (key !== undefined) fields.requestKey = key;
	const waiting = { pollIntervalSeconds: 1, timeoutMinutes: batch.timeoutMinutes };
	const waitMode = batch.waitMode;
	const { step } = batch;
	if (step.operation === 'runLook') {
		return {
			resource: 'app',
			operation: 'runLook',
			app: { __rl: true, mode: 'id', value: step.app },
			look: step.look,
			photos: { slot: step.photos },
			lookFields: fields,
			waitMode,
			waiting,
		};
	}
	return {
		...generateParameters({
			kind: step.kind,
			model: step.model ?? '={{ $json.model }}',
			prompt: '={{ $json.prompt }}',
			waiting,
		}),
		modelOptions: { mappingMode: 'defineBelow', value: step.options },
		...(step.musicMode ? { musicMode: step.musicMode } : {}),
		additionalFields: fields,
		waitMode,
	};
}
