// Model → Get Many: the model catalogue, one item per model, filterable by kind and free tier.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { kindFilter } from '../../../shared/fields';
import { getModels } from '../../catalogue/catalogue';

export const properties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'modelFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			kindFilter('Only models that make this kind of file'),
			{
				displayName: 'Free Tier Only',
				name: 'freeTier',
				type: 'boolean',
				default: false,
				description: 'Whether to return only models marked as free tier',
			},
		],
	},
];

export async function executeItem(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const models = await getModels(this);
	const filters = this.getNodeParameter('modelFilters', itemIndex, {}) as IDataObject;
	return models
		.filter((m) => !filters.kind || m.kind === filters.kind)
		.filter((m) => !filters.freeTier || m.free_tier)
		.map((m) => ({ json: m as unknown as IDataObject, pairedItem: { item: itemIndex } }));
}
