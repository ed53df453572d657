// The shared path from a prepared request to an output item: submit (with a request key, so a
// retry is never charged twice), wait through 409 busy, wait for the run, download the files.
// Used by Generate and App → Run Look.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiRequest, MediaGenApiError, type Identity } from '../transport';
import { FINAL_STATUSES, type RunRecord } from './catalogueTypes';
import { downloadOutputs } from './binary';
import { DEFAULT_TIMEOUT_MINUTES, failedRunError, waitForRun } from './waitForRun';

export interface RunSettings {
	wait: boolean;
	download: boolean;
	binaryProperty: string;
	pollIntervalMs: number;
	timeoutMs: number;
	requestTimeoutMs: number;
}

/** The fields every run-producing operation shows, for waiting and outputs. */
export function runSettingsFields(show: Record<string, string[]>): INodeProperties[] {
	return [
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: true,
			displayOptions: { show },
			description:
				'Whether to wait until the run is finished and return its files. Off: the node returns the run record at once (status PENDING) and you can pick it up later with Generation → Wait or a Media Generation Trigger.',
		},
		{
			displayName: 'Download Outputs',
			name: 'downloadOutputs',
			type: 'boolean',
			default: true,
			displayOptions: { show: { ...show, waitForCompletion: [true] } },
			description: 'Whether to download the finished files into the item as binary data, ready for Slack, Drive or any file node',
		},
		waitingCollection(show),
	];
}

/** The "Waiting" collection (poll interval, time limit, file property, request time limit). */
export function waitingCollection(show: Record<string, string[]>, names?: string[]): INodeProperties {
	return {
		displayName: names ? 'Options' : 'Waiting',
		name: 'waiting',
		type: 'collection',
		placeholder: names ? 'Add Option' : 'Add Waiting Setting',
		default: {},
		displayOptions: { show },
		options: names ? waitingOptions.filter((o) => names.includes(o.name)) : waitingOptions,
	};
}

export const waitingOptions: INodeProperties[] = [
	{
		displayName: 'Check Every (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 60 },
		default: 3,
		description: 'How often to ask whether the run is done. The service suggests 3 to 5 seconds.',
	},
	{
		displayName: 'Time Limit (Minutes)',
		name: 'timeoutMinutes',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: 'How long to wait before giving up (the run keeps going on the service). 0 uses the suggested limit: 3 minutes for images, 10 for video, 5 for music.',
	},
	{
		displayName: 'Put Files In',
		name: 'binaryProperty',
		type: 'string',
		default: 'data',
		description: 'Name of the binary property for the first file; more files get _1, _2 … and song covers go to cover, cover_1',
	},
	{
		displayName: 'Request Time Limit (Seconds)',
		name: 'requestTimeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 60,
		description: 'How long one request to the service may take before it is retried or reported',
	},
];

export function readRunSettings(ctx: IExecuteFunctions, itemIndex: number): RunSettings {
	const wait = ctx.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const waiting = ctx.getNodeParameter('waiting', itemIndex, {}) as IDataObject;
	return {
		wait,
		download: wait && (ctx.getNodeParameter('downloadOutputs', itemIndex, true) as boolean),
		binaryProperty: String(waiting.binaryProperty || 'data'),
		pollIntervalMs: Math.max(1, Number(waiting.pollIntervalSeconds ?? 3)) * 1000,
		timeoutMs: Number(waiting.timeoutMinutes ?? 0) * 60_000,
		requestTimeoutMs: Math.max(1, Number(waiting.requestTimeoutSeconds ?? 60)) * 1000,
	};
}

function instancePart(ctx: IExecuteFunctions): string {
	try {
		return (ctx.getInstanceId() ?? '').slice(0, 12);
	} catch {
		return '';
	}
}

/**
 * Default request key: same n8n instance, execution, node, run and item → same key, so retries are
 * never charged twice. The instance part keeps two n8n instances (whose execution ids both start
 * at 1) from getting each other's runs back.
 */
export function defaultRequestKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const runIndex = (ctx as unknown as { runIndex?: number }).runIndex ?? 0;
	const node = ctx.getNode();
	return `n8n-${instancePart(ctx)}-${ctx.getExecutionId() ?? 'manual'}-${node.id ?? node.name}-${runIndex}-${itemIndex}`.slice(0, 120);
}

/** POST /generations; 409 busy waits and retries with the same key until the time limit. */
export async function submitGeneration(
	ctx: IExecuteFunctions,
	identity: Identity,
	body: IDataObject,
	settings: RunSettings,
	itemIndex: number,
): Promise<RunRecord> {
	const signal = ctx.getExecutionCancelSignal();
	const kind = String(body.kind) as keyof typeof DEFAULT_TIMEOUT_MINUTES;
	const limitMs = settings.timeoutMs || (DEFAULT_TIMEOUT_MINUTES[kind] ?? 10) * 60_000;
	const started = Date.now();
	for (;;) {
		const outcome = await apiRequest<{ generation: RunRecord }>(
			ctx,
			// A repeated requestKey returns the first run, so retrying a submission is safe.
			{ method: 'POST', path: '/generations', body, retryTransient: 1, itemIndex, timeoutMs: settings.requestTimeoutMs },
			identity,
		).then(
			(res) => ({ run: res.body.generation, failure: undefined }),
			(failure: Error) => ({ run: undefined, failure }),
		);
		if (outcome.run) return outcome.run;
		const busy = outcome.failure instanceof MediaGenApiError && outcome.failure.code === 'busy';
		if (!busy || Date.now() - started + settings.pollIntervalMs > limitMs || signal?.aborted) return await Promise.reject(outcome.failure);
		await sleep(settings.pollIntervalMs, signal);
	}
}

/** Submits, waits and downloads as the settings say; returns the output item. */
export async function runToItem(
	ctx: IExecuteFunctions,
	identity: Identity,
	body: IDataObject,
	settings: RunSettings,
	itemIndex: number,
): Promise<INodeExecutionData> {
	let run = await submitGeneration(ctx, identity, body, settings, itemIndex);
	if (settings.wait) run = await waitForRun(ctx, identity, run, settings, itemIndex);
	return await finishedRunToItem(ctx, run, settings, itemIndex, { requestKey: body.requestKey });
}

/** A run record as an output item; a failed run becomes an error carrying its id and refund. */
export async function finishedRunToItem(
	ctx: IExecuteFunctions,
	run: RunRecord,
	settings: RunSettings,
	itemIndex: number,
	extra: IDataObject = {},
): Promise<INodeExecutionData> {
	if (run.status === 'FAILED' || run.status === 'CANCELED') throw failedRunError(ctx, run, itemIndex);
	const json: IDataObject = { ...(run as unknown as IDataObject), ...extra };
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (settings.download && run.status === 'SUCCEEDED' && run.outputs?.length) {
		try {
			const files = await downloadOutputs(ctx, run, settings.binaryProperty);
			item.binary = files.binary;
			json.files = files.files as unknown as IDataObject[];
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), `Run ${run.id} succeeded, but downloading its files failed: ${(error as Error).message}`, {
				description: `The files stay available at their URLs (in "outputs"). Run Generation → Get with run ID ${run.id} to download them again; nothing more is charged.`,
				itemIndex,
			});
		}
	}
	if (!FINAL_STATUSES.includes(run.status)) json.note = 'Not waited for: use Generation → Wait or the Media Generation Trigger to get the result.';
	return item;
}
