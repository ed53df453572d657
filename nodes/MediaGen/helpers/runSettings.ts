// Reads how a run-producing operation waits and returns files (the fields live in actions/descriptions.ts).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

export interface RunSettings {
	wait: boolean;
	/** poll: the node checks the runs and holds the execution; pause: it lets go until the service calls back. */
	mode: 'poll' | 'pause';
	download: boolean;
	binaryProperty: string;
	pollIntervalMs: number;
	/** 0: the spec's suggestion for the run's kind. */
	timeoutMs: number;
	requestTimeoutMs: number;
}

export function readRunSettings(ctx: IExecuteFunctions, itemIndex: number): RunSettings {
	const wait = ctx.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const waiting = ctx.getNodeParameter('waiting', itemIndex, {}) as IDataObject;
	return {
		wait,
		mode: wait && ctx.getNodeParameter('waitMode', itemIndex, 'poll') === 'pause' ? 'pause' : 'poll',
		download: wait && (ctx.getNodeParameter('downloadOutputs', itemIndex, true) as boolean),
		binaryProperty: String(waiting.binaryProperty || 'data').trim() || 'data',
		pollIntervalMs: Math.max(1, Number(waiting.pollIntervalSeconds ?? 3)) * 1000,
		timeoutMs: Math.max(0, Number(waiting.timeoutMinutes ?? 0)) * 60_000,
		requestTimeoutMs: Math.max(1, Number(waiting.requestTimeoutSeconds ?? 60)) * 1000,
	};
}
