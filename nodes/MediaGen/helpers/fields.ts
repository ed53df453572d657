// Field pieces several operations share.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

export const KIND_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Image', value: 'image' },
	{ name: 'Video', value: 'video' },
	{ name: 'Music', value: 'music' },
];

/** A "Kind" filter for a Filters collection. */
export function kindFilter(description: string): INodeProperties {
	return { displayName: 'Kind', name: 'kind', type: 'options', options: KIND_OPTIONS, default: 'image', description };
}
