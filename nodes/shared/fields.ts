// Field pieces and parameter readers several operations share.
import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const KIND_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Image', value: 'image' },
	{ name: 'Video', value: 'video' },
	{ name: 'Music', value: 'music' },
];

export function kindFilter(description: string): INodeProperties {
	return { displayName: 'Kind', name: 'kind', type: 'options', options: KIND_OPTIONS, default: 'image', description };
}

/** A comma- or newline-separated list, trimmed, without blanks. */
export function splitList(value: unknown): string[] {
	return String(value ?? '')
		.split(/[\n,]/)
		.map((s) => s.trim())
		.filter(Boolean);
}

/** The cap from a collection that may hold Max Credits per Execution; undefined when it is not set. */
export function readMaxCredits(fields: IDataObject): number | undefined {
	if (fields.maxCredits === undefined || fields.maxCredits === null || fields.maxCredits === '') return undefined;
	return Number(fields.maxCredits);
}

export function readRunId(ctx: IExecuteFunctions, itemIndex: number): string {
	const runId = String(ctx.getNodeParameter('runId', itemIndex, '') ?? '').trim();
	if (!runId) {
		throw new NodeOperationError(ctx.getNode(), 'Run ID is empty', {
			description: 'Enter the ID of a run, for example {{ $json.id }} from a Generate step.',
			itemIndex,
		});
	}
	return runId;
}
