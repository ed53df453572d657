// Generation → Get Many: runs newest first, following `next_before` for "Return All" or until the
// limit; kind, model and status filters are applied to what the API returns.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { kindFilter } from '../../../shared/fields';
import { apiRequest } from '../../../shared/transport';
import { generationListProblem } from '../../../shared/responseChecks';
import { runJson, type RunRecord } from '../../../shared/records';

export const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
	{
		displayName: 'Filters',
		name: 'runFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			kindFilter('Only runs of this kind'),
			{
				displayName: 'Model ID',
				name: 'model',
				type: 'string',
				default: '',
				description: 'Only runs of this model',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: ['QUEUED', 'PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELED'].map((s) => ({
					name: s.charAt(0) + s.slice(1).toLowerCase(),
					value: s,
				})),
				default: 'SUCCEEDED',
				description: 'Only runs in this state',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'listOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 100 },
				default: 100,
				description: 'How many runs to ask for per request (1 to 100). Larger pages mean fewer requests.',
			},
		],
	},
];

export async function executeItem(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? Infinity : Math.max(1, Number(this.getNodeParameter('limit', itemIndex, 50)));
	const filters = this.getNodeParameter('runFilters', itemIndex, {}) as IDataObject;
	const { pageSize } = this.getNodeParameter('listOptions', itemIndex, {}) as IDataObject;
	const limitPerPage = Math.min(100, Math.max(1, Number(pageSize ?? 100)));
	const matches = (r: RunRecord) =>
		(!filters.kind || r.kind === filters.kind) &&
		(!filters.model || r.model === String(filters.model).trim()) &&
		(!filters.status || r.status === filters.status);
	const out: INodeExecutionData[] = [];
	let before: number | null | undefined;
	do {
		const page = await apiRequest<{ generations: RunRecord[]; next_before: number | null }>(this, {
			method: 'GET',
			path: '/generations',
			qs: before ? { limit: limitPerPage, before } : { limit: limitPerPage },
			retryTransient: 2,
			itemIndex,
			expect: generationListProblem,
		});
		for (const run of page.body.generations ?? []) {
			if (out.length >= limit) break;
			if (matches(run)) out.push({ json: runJson(run) as IDataObject, pairedItem: { item: itemIndex } });
		}
		before = page.body.next_before;
	} while (before && out.length < limit);
	return out;
}
