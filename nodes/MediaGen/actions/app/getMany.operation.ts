// App → Get Many: the app catalogue, one item per app with its looks, filterable by kind, category and tag.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { kindFilter } from '../../../shared/fields';
import { getApps } from '../../catalogue/catalogue';

export const properties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'appFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Category',
				name: 'category',
				type: 'string',
				default: '',
				description: 'Only apps in this category, for example portraits',
			},
			kindFilter('Only apps that make this kind of file'),
			{
				displayName: 'Tag',
				name: 'tag',
				type: 'string',
				default: '',
				description: 'Only apps carrying this tag, for example gift',
			},
		],
	},
];

export async function executeItem(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const filters = this.getNodeParameter('appFilters', itemIndex, {}) as IDataObject;
	const category = String(filters.category ?? '')
		.trim()
		.toLowerCase();
	const tag = String(filters.tag ?? '')
		.trim()
		.toLowerCase();
	return (await getApps(this))
		.filter((a) => !filters.kind || a.kind === filters.kind)
		.filter((a) => !category || (a.category ?? '').toLowerCase() === category)
		.filter((a) => !tag || (a.tags ?? []).some((t) => t.toLowerCase() === tag))
		.map((a) => ({ json: a as unknown as IDataObject, pairedItem: { item: itemIndex } }));
}
