// Generation → Generate: its fields (kind, model, prompt, the model's options, reference files), an item read into
// its run request (prepare), and its steps (generateRuns), which Run Look shares.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	ResourceMapperValue,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { prepareBinaryFile } from '../../files/upload';
import { resolveModel } from '../../catalogue/catalogue';
import { KIND_NOUNS, kindLabel, parseKind } from '../../../shared/records';
import { checkedRequest } from '../../run/checkRequest';
import { splitList } from '../../../shared/fields';
import { resolveOptions } from '../../catalogue/modelOptions';
import { pollRuns } from '../../batch/pollRuns';
import { prepareItems, type PrepareItem } from '../../batch/prepareItems';
import { pauseRuns } from '../../pause/pauseRuns';
import { spendingCapFor } from '../../run/spendingCap';
import { readRequestText, type FileSource, type RunRequest } from '../../run/runRequest';
import { maxCreditsField, requestKeyField, webhookUrlField } from '../descriptions';

/** A resource mapper filled from the chosen model's catalogue entry, reloaded when Kind, Model or Music Mode change. */
function catalogueBox(
	resourceMapperMethod: string,
	singular: string,
	valuesLabel?: string,
): INodeProperties['typeOptions'] {
	return {
		loadOptionsDependsOn: ['kind', 'model.value', 'musicMode'],
		resourceMapper: {
			resourceMapperMethod,
			mode: 'add',
			fieldWords: { singular, plural: `${singular}s` },
			addAllFields: true,
			...(valuesLabel ? { valuesLabel } : {}),
			multiKeyMatch: false,
			supportAutoMap: false,
		},
	};
}

/** Generate's Additional Fields; an item leaves out those its kind hides (a Kind expression shows them all). */
const additionalFields: INodeProperties[] = [
	{
		displayName: 'Driving Audio File',
		name: 'audioProperty',
		type: 'string',
		default: '',
		displayOptions: { hide: { '/kind': ['image', 'music'] } },
		description:
			"Talking-avatar video models only (About the Model says when a model needs it): the name of the input item's " +
			'file holding the voice, as its Binary tab shows it (MP3, WAV or M4A, up to 50 MB). It is uploaded first; ' +
			'the price follows its real length.',
	},
	{
		displayName: 'Driving Audio URL',
		name: 'audioUrl',
		type: 'string',
		default: '',
		displayOptions: { hide: { '/kind': ['image', 'music'] } },
		description: 'Talking-avatar video models only: an audio address returned by File → Upload',
	},
	{
		displayName: 'End Frame File',
		name: 'endFrameProperty',
		type: 'string',
		default: '',
		displayOptions: { hide: { '/kind': ['image', 'music'] } },
		description:
			"Video models that support it: the name of the input item's file holding the image the clip should end on, " +
			'as its Binary tab shows it',
	},
	{
		displayName: 'End Frame URL',
		name: 'endFrameUrl',
		type: 'string',
		default: '',
		displayOptions: { hide: { '/kind': ['image', 'music'] } },
		description: 'Video models that support it (see About the Model): the address of the image the clip should end on',
	},
	maxCreditsField,
	{
		displayName: 'Negative Prompt',
		name: 'negativePrompt',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		displayOptions: { hide: { '/kind': ['music'] } },
		description:
			'What to keep out of the result, up to 2,000 characters. Only models that use it accept it (see About the ' +
			'Model).',
	},
	requestKeyField,
	webhookUrlField,
];

/**
 * Under Model, when the model picked from the list is of another kind than Kind now says. n8n's editor empties Model on
 * a Kind change only when it can resolve every expression of the node, and then asks the node nothing (no list, no
 * About the Model), so this is worked out in the editor alone: from the kind the list put first in the model's name,
 * which n8n saved with the choice. Hidden while Kind is an expression (each item then has its own kind).
 */
function modelKindNotices(): INodeProperties[] {
	return (['image', 'video', 'music'] as const).map((kind) => ({
		displayName:
			`The model chosen above makes ${KIND_NOUNS[kind]}, not what Kind now asks for. Pick a model from the list ` +
			`(it shows the models of the new kind), or set Kind back to ${kindLabel(kind)}. Nothing is sent as it is.`,
		name: `${kind}ModelNotice`,
		type: 'notice',
		default: '',
		// `regex`, not `startsWith`: n8n 1.x runs startsWith on a missing value and fails the whole execution.
		displayOptions: {
			show: { '/model.cachedResultName': [{ _cnd: { regex: `^${kindLabel(kind)} · ` } }] },
			hide: { kind: [kind, { _cnd: { regex: '^=' } }] },
		},
	}));
}

/** Generate's fields; Estimate Cost shows the same ones, so an item is read and checked the same way. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Kind',
		name: 'kind',
		type: 'options',
		options: [
			{ name: 'Image', value: 'image', description: 'A picture from a prompt, optionally guided by reference images' },
			{ name: 'Video', value: 'video', description: 'A short clip from a prompt or from a photo (image-to-video)' },
			{ name: 'Music', value: 'music', description: 'A song: two takes per run, each an MP3 with cover art' },
		],
		default: 'image',
		description:
			'What to generate. It decides which models are offered. To mix kinds in one step, use an expression that ' +
			'gives image, video or music for each item, and leave Model empty or give it By ID from an expression too.',
	},
	{
		displayName:
			'Kind comes from an expression, so the kind is known per item only when the step runs. Every field is shown ' +
			'here; for each item only the fields of its kind are used (Music Mode for music; Reference Images, Negative ' +
			'Prompt, End Frame and Driving Audio for image and video). Leave Model empty for the cheapest free-tier ' +
			"model of each item's kind, or give it By ID with an expression too, for example {{ $json.model }}.",
		name: 'kindExpressionNotice',
		type: 'notice',
		default: '',
		// Shown while Kind holds anything but a fixed kind, that is an expression.
		displayOptions: { hide: { kind: ['image', 'video', 'music'] } },
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		// n8n's editor empties the model when Kind changes, so no model of another kind stays chosen.
		typeOptions: { loadOptionsDependsOn: ['kind'] },
		description:
			"The model that makes the file. The list shows each model's price in credits at its default options. " +
			'Left empty, the step uses the cheapest free-tier model of the kind in the catalogue.',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Cheapest free-tier model of the kind',
				typeOptions: { searchListMethod: 'searchModels', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. a model ID from Model → Get Many',
			},
		],
	},
	...modelKindNotices(),
	{
		// Never read when the node runs: an always-empty field list whose notice describes the chosen model.
		displayName: 'About the Model',
		name: 'modelInfo',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		typeOptions: catalogueBox('getModelSummary', 'detail'),
		description: 'What the chosen model does and needs: prompt limit, reference images, driving audio, end frame',
	},
	{
		displayName: 'Music Mode',
		name: 'musicMode',
		type: 'options',
		// The API's three modes (spec "Music"); which a model offers is checked before anything is sent.
		options: [
			['Describe', 'One sentence about the song; the lyrics are written for you. Options: Style.'],
			['Lyrics', 'Your own lyrics, sung in order ([Verse], [Chorus] marks). Options: Style, Song Title, Voice.'],
			['Instrumental', 'No vocals: describe the sound (genre, instruments, tempo). Options: Song Title.'],
		].map(([name, description]) => ({ name, value: name, description })),
		default: 'Describe',
		displayOptions: { hide: { kind: ['image', 'video'] } },
		description:
			'What the prompt holds, and which of Style, Song Title and Voice are offered. Every mode costs the same per run.',
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description:
			'What to make, in plain words. For music: a sentence (Describe), your lyrics with [Verse]/[Chorus] marks ' +
			'(Lyrics) or the wanted sound (Instrumental). The length limit depends on the model and mode.',
	},
	{
		displayName: 'Options',
		name: 'modelOptions',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		typeOptions: catalogueBox('getModelOptionFields', 'option', 'Options'),
		description:
			'Only the options this model accepts, with their allowed values. Each starts at "Model Default (…)": ' +
			'nothing is sent and the model uses its default.',
	},
	{
		displayName: 'Reference Image Files',
		name: 'referenceImageProperties',
		type: 'string',
		default: '',
		placeholder: 'e.g. data, photo2',
		displayOptions: { hide: { kind: ['music'] } },
		description:
			"Names of the input item's files holding reference images, as its Binary tab shows them (PNG, JPEG or " +
			'WebP, up to 10 MB each), separated by commas. They are uploaded first. Makes the run image-to-image or ' +
			'image-to-video. Leave empty for text only.',
	},
	{
		displayName: 'Reference Image URLs',
		name: 'referenceImageUrls',
		type: 'string',
		default: '',
		placeholder: 'https://example.com/photo.jpg',
		displayOptions: { hide: { kind: ['music'] } },
		description:
			'Public https addresses of reference images, separated by commas or new lines. Together with the binary ones, ' +
			"at most the model's limit (and never more than 14).",
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: additionalFields,
	},
];

/** Reads one item into its run request, checked: throws its refusal before anything that could spend credits. */
export async function prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<RunRequest> {
	const param = (name: string, fallback?: unknown) => ctx.getNodeParameter(name, itemIndex, fallback);
	const kindValue = param('kind');
	const kind = parseKind(kindValue);
	if (!kind) {
		throw new NodeOperationError(ctx.getNode(), `Kind: "${String(kindValue)}" is not image, video or music`, {
			description:
				'Choose Image, Video or Music, or make the Kind expression give one of image, video, music for this item.',
			itemIndex,
		});
	}
	const mapped = ((param('modelOptions', { value: null }) as ResourceMapperValue)?.value ?? {}) as IDataObject;
	const modelId = String(ctx.getNodeParameter('model', itemIndex, '', { extractValue: true }) ?? '').trim();
	const prompt = readRequestText(ctx, 'prompt', 'Prompt', itemIndex);
	const musicMode = kind === 'music' ? String(param('musicMode', '') || '') || undefined : undefined;
	const additional = Object.entries(param('additionalFields', {}) as IDataObject);
	const hidden = (name: string) =>
		additionalFields.some((f) => f.name === name && f.displayOptions?.hide?.['/kind']?.includes(kind));
	const fields = Object.fromEntries(additional.filter(([name]) => !hidden(name)));
	const list = (name: string) => (kind === 'music' ? [] : splitList(param(name, '')));
	const [imageProps, imageUrls] = [list('referenceImageProperties'), list('referenceImageUrls')];
	// Model left empty: the kind's cheapest free-tier model, read from the catalogue now (the editor says which).
	const model = await resolveModel(ctx, modelId, kind, itemIndex);
	const { options, problems } = resolveOptions(model, mapped, musicMode);
	const body: IDataObject = { kind, model: model.id, prompt, options: options as IDataObject };
	if (fields.negativePrompt) body.negativePrompt = String(fields.negativePrompt);
	const fromProperty = async (property: string, field: string, family: 'image' | 'audio'): Promise<FileSource> => ({
		file: await prepareBinaryFile(ctx, itemIndex, property, field, [family]),
		field,
	});
	// Uploaded images first, then the addresses, as the Reference Images help says.
	const images: FileSource[] = [];
	for (const property of imageProps) images.push(await fromProperty(property, 'Reference Images', 'image'));
	images.push(...imageUrls.map((url) => ({ url, field: 'Reference Image URLs' })));
	const either = async (name: string, label: string, family: 'image' | 'audio') => {
		const [url, property] = [`${name}Url`, `${name}Property`].map((n) => String(fields[n] ?? '').trim());
		if (url) return { url, field: `${label} URL` };
		return property ? await fromProperty(property, label, family) : undefined;
	};
	const endFrame = await either('endFrame', 'End Frame', 'image');
	const audio = await either('audio', 'Driving Audio', 'audio');
	return await checkedRequest(ctx, { itemIndex, model, body, images, endFrame, audio }, fields, problems);
}

export const startsRuns = true;

/**
 * Generate's steps; Run Look takes them with its own `prepare`. Nothing can be charged before every item is read and
 * checked and the batch priced under Max Credits per Execution.
 */
export async function generateRuns(ctx: IExecuteFunctions, prepareItem: PrepareItem): Promise<INodeExecutionData[]> {
	const items = await prepareItems(ctx, prepareItem);
	const cap = await spendingCapFor(ctx, items.ready);
	if (items.ready[0]?.settings.mode === 'pause') return await pauseRuns(ctx, items.ready, items.refused, cap);
	return await pollRuns(ctx, items, cap);
}

export async function executeAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await generateRuns(this, async (i) => await prepare(this, i));
}
