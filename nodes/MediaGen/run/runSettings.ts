// How a run-producing operation waits and returns files (fields: actions/descriptions.ts). As an AI tool the node
// answers a caller who is waiting: it never pauses, and waits a shorter time by default.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isToolCall } from './toolCall';
import { TOOL_TIME_LIMIT_MS } from './timeLimit';

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

/** Check Every (Seconds) when it is not set: the spec suggests 3 to 5 seconds. */
export const POLL_INTERVAL_DEFAULT_SECONDS = 3;

export function readRunSettings(ctx: IExecuteFunctions, itemIndex: number): RunSettings {
	const wait = ctx.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const waiting = ctx.getNodeParameter('waiting', itemIndex, {}) as IDataObject;
	const mode = wait && ctx.getNodeParameter('waitMode', itemIndex, 'poll') === 'pause' ? 'pause' : 'poll';
	const tool = isToolCall(ctx);
	if (tool && mode === 'pause') {
		throw new NodeOperationError(ctx.getNode(), 'Waiting: pause mode cannot run inside an AI tool call', {
			description:
				'An agent or MCP client waits for the answer of the call, and n8n cannot pause an execution there. ' +
				'Set Waiting to Poll on this tool (long runs then come back with their run ID to fetch later).',
			itemIndex,
		});
	}
	const timeoutMs = Math.max(0, Number(waiting.timeoutMinutes ?? 0)) * 60_000;
	return {
		wait,
		mode,
		download: wait && (ctx.getNodeParameter('downloadOutputs', itemIndex, true) as boolean),
		binaryProperty: String(waiting.binaryProperty || 'data').trim() || 'data',
		pollIntervalMs: Math.max(1, Number(waiting.pollIntervalSeconds ?? POLL_INTERVAL_DEFAULT_SECONDS)) * 1000,
		timeoutMs: timeoutMs || (tool ? TOOL_TIME_LIMIT_MS : 0),
		requestTimeoutMs: Math.max(1, Number(waiting.requestTimeoutSeconds ?? 60)) * 1000,
	};
}
