// The fields that decide how a run-producing operation waits and returns files, and their reading.
// Shared by Generate, Run Look, Get and Wait.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

export interface RunSettings {
	wait: boolean;
	download: boolean;
	binaryProperty: string;
	pollIntervalMs: number;
	/** 0: the spec's suggestion for the run's kind. */
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
			description:
				'Whether to download the finished files into the item as binary data, ready for Slack, Drive or any file node',
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
		description:
			'How long to wait before giving up (the run keeps going on the service). 0 uses the suggested limit: 3 minutes for images, 10 for video, 5 for music.',
	},
	{
		displayName: 'Put Files In',
		name: 'binaryProperty',
		type: 'string',
		default: 'data',
		description:
			'Name of the binary property for the first file; more files get _1, _2 … and song covers go to cover, cover_1 (or to this name plus _cover when this name is cover)',
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
		binaryProperty: String(waiting.binaryProperty || 'data').trim() || 'data',
		pollIntervalMs: Math.max(1, Number(waiting.pollIntervalSeconds ?? 3)) * 1000,
		timeoutMs: Math.max(0, Number(waiting.timeoutMinutes ?? 0)) * 60_000,
		requestTimeoutMs: Math.max(1, Number(waiting.requestTimeoutSeconds ?? 60)) * 1000,
	};
}
