// App → Run Look: a ready-made look of an app (its prompt, model and options, completed with the model's defaults)
// run on the user's photos, sent in imageUrls in the order of the app's slots. Its steps are Generate's.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { prepareBinaryFile } from '../../files/upload';
import { getApps, resolveModel } from '../../catalogue/catalogue';
import { effectiveOptions } from '../../catalogue/modelOptions';
import type { CatalogueApp } from '../../../shared/records';
import { checkedRequest } from '../../run/checkRequest';
import { KIND_OPTIONS, splitList } from '../../../shared/fields';
import type { FileSource, RunRequest } from '../../run/runRequest';
import { maxCreditsField, requestKeyField, webhookUrlField } from '../descriptions';
import { generateRuns } from '../generation/generate.operation';

/** One photo slot of the app, chosen from its list (Photos → Slot); at the top level so its line fits. */
const slotField: INodeProperties = {
	displayName: 'Slot Name or ID',
	name: 'slotId',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getAppSlots', loadOptionsDependsOn: ['app.value'] },
	default: '',
	hint: "Which of the app's photo slots these photos fill",
	description:
		'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
};

/** Run Look's fields; App → Estimate Cost shows the same ones, so an item is read and checked the same way. */
export const properties: INodeProperties[] = [
	{
		displayName: 'App Kind',
		name: 'appKind',
		type: 'options',
		options: [{ name: 'Any', value: '' }, ...KIND_OPTIONS],
		default: '',
		description: 'Narrows the app list to apps that make this kind of file',
	},
	{
		displayName: 'App',
		name: 'app',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		// Changing App Kind clears the app, as Kind clears the model in Generate.
		typeOptions: { loadOptionsDependsOn: ['appKind'] },
		description: 'The ready-made app whose look to run',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchApps', searchable: true },
			},
			{ displayName: 'By Slug', name: 'id', type: 'string', placeholder: 'e.g. pet-portrait' },
		],
	},
	{
		displayName: 'Look Name or ID',
		name: 'look',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getLooks', loadOptionsDependsOn: ['app.value'] },
		default: '',
		required: true,
		hint: 'The preset look: a prepared prompt, model and options',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	},
	{
		displayName: 'Photos',
		name: 'photos',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Photos for a Slot',
		default: {},
		description:
			"Fill each of the app's photo slots from binary properties of the input item or from URLs. Each slot says how " +
			'many photos it takes.',
		options: [
			{
				displayName: 'Slot',
				name: 'slot',
				values: [
					slotField,
					{
						displayName: 'Photo Files',
						name: 'binaryProperties',
						type: 'string',
						default: '',
						placeholder: 'e.g. data',
						description:
							"Names of the input item's files holding the photos, as its Binary tab shows them, separated by commas",
					},
					{
						displayName: 'URLs',
						name: 'urls',
						type: 'string',
						default: '',
						description: 'Public https addresses of photos, separated by commas or new lines',
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'lookFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [maxCreditsField, requestKeyField, webhookUrlField],
	},
];

/** Whether a media type fits a slot's accept pattern ("image/*", "image/png,image/jpeg"). */
function acceptsType(accept: string, mime: string): boolean {
	const patterns = accept.split(',').map((p) => p.trim().toLowerCase());
	return patterns.some((p) => p === '*/*' || p === mime || (p.endsWith('/*') && mime.startsWith(p.slice(0, -1))));
}

/**
 * The photos of the app's slots, in the order the app lists them (a slot's files, then its URLs), each slot's count
 * and each file's type checked against the slot.
 */
async function slotPhotos(ctx: IExecuteFunctions, app: CatalogueApp, itemIndex: number): Promise<FileSource[]> {
	const refuse = (message: string, description: string) =>
		new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
	const entries = ((ctx.getNodeParameter('photos', itemIndex, {}) as IDataObject).slot ?? []) as IDataObject[];
	const unknown = entries.find((e) => !app.inputs.some((s) => s.id === String(e.slotId)));
	if (unknown) {
		const slots = app.inputs.map((s) => `${s.label} (${s.id})`).join(', ') || 'none';
		throw refuse(
			`Photos: "${String(unknown.slotId)}" is not a slot of ${app.name}. Its slots: ${slots}`,
			'Pick the slot from the list under Photos.',
		);
	}
	const photos: FileSource[] = [];
	for (const slot of app.inputs) {
		const field = `Photos (${slot.label})`;
		const mine = entries.filter((e) => e.slotId === slot.id);
		const properties = mine.flatMap((e) => splitList(e.binaryProperties));
		const urls = mine.flatMap((e) => splitList(e.urls));
		const count = properties.length + urls.length;
		if (count < slot.min || count > slot.max) {
			const wanted = slot.min === slot.max ? `exactly ${slot.min}` : `${slot.min} to ${slot.max}`;
			throw refuse(
				`Photos: the slot "${slot.label}" takes ${wanted} photo${slot.max === 1 ? '' : 's'}; ${count} given`,
				`${slot.hint ?? ''} Accepted: ${slot.accept}.`.trim(),
			);
		}
		const families = (['image', 'video', 'audio'] as const).filter(
			(family) => slot.accept.includes(`${family}/`) || slot.accept.includes('*/*'),
		);
		for (const property of properties) {
			const file = await prepareBinaryFile(ctx, itemIndex, property, field, families.length ? families : ['image']);
			if (!acceptsType(slot.accept, file.mime)) {
				throw refuse(
					`${field}: the file in "${property}" is ${file.mime}; this slot accepts ${slot.accept}`,
					'Convert the file or pick another one.',
				);
			}
			photos.push({ file, field });
		}
		photos.push(...urls.map((url) => ({ url, field })));
	}
	return photos;
}

/** Reads one item into its run request, checked: throws its refusal before anything that could spend credits. */
export async function prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<RunRequest> {
	const refuse = (message: string, description: string) =>
		new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
	const slug = String(ctx.getNodeParameter('app', itemIndex, '', { extractValue: true }) ?? '').trim();
	const lookId = String(ctx.getNodeParameter('look', itemIndex, '') ?? '').trim();
	const apps = await getApps(ctx);
	const app = apps.find((a) => a.slug === slug);
	if (!app) {
		const slugs = apps.map((a) => a.slug).join(', ');
		throw refuse(
			`App: "${slug}" is not in the app catalogue. Available apps: ${slugs}`,
			'Pick an app from the list, or check the slug.',
		);
	}
	const look = app.looks.find((l) => l.id === lookId);
	if (!look) {
		const looks = app.looks.map((l) => `${l.name} (${l.id})`).join(', ');
		throw refuse(`Look: "${lookId}" is not a look of ${app.name}. Its looks: ${looks}`, 'Pick the look from the list.');
	}
	const model = await resolveModel(ctx, look.model, undefined, itemIndex);
	const fields = ctx.getNodeParameter('lookFields', itemIndex, {}) as IDataObject;
	const images = await slotPhotos(ctx, app, itemIndex);
	const options = effectiveOptions(model, look.options).options as IDataObject;
	const body = { kind: model.kind, model: model.id, prompt: look.prompt, options };
	const read = { itemIndex, model, body, images, extraJson: { app: app.slug, look: look.id } };
	return await checkedRequest(ctx, read, fields);
}

export const startsRuns = true;

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await generateRuns(this, async (i) => await prepare(this, i));
}
