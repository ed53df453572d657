// Field pieces several operations share.
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

export const KIND_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Image', value: 'image' },
	{ name: 'Video', value: 'video' },
	{ name: 'Music', value: 'music' },
];

/** A "Kind" filter for a Filters collection. */
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

export const maxCreditsField: INodeProperties = {
	displayName: 'Max Credits per Execution',
	name: 'maxCredits',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 100,
	description:
		'A spending cap: this step submits no run that would take the credits it spent in this execution over this number (failed runs are refunded and do not count). Prices come from runs already accepted and from the model list. Leave it out for no cap.',
};

/** The cap from a collection that may hold Max Credits per Execution; undefined when it is not set. */
export function readMaxCredits(fields: IDataObject): number | undefined {
	if (fields.maxCredits === undefined || fields.maxCredits === null || fields.maxCredits === '') return undefined;
	return Number(fields.maxCredits);
}
