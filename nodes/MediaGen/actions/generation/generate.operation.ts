// Generation → Generate: kind → model → prompt → options from the model's catalogue entry,
// reference files, then submit, wait and return the files. Many items run side by side within
// the account's concurrency.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, ResourceMapperValue } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getIdentity, type Identity } from '../../transport';
import { prepareBinaryFile, uploadFile, type PreparedFile } from '../../helpers/binary';
import { findModel, getModels } from '../../helpers/catalogue';
import type { CatalogueModel, MediaKind } from '../../helpers/catalogueTypes';
import { checkRequest } from '../../helpers/checkRequest';
import { resolveOptions } from '../../helpers/resolveOptions';
import { defaultRequestKey, readRunSettings, runSettingsFields, runToItem } from '../../helpers/submitRun';
import { executeBatch } from '../../helpers/executeBatch';

const show = { resource: ['generation'], operation: ['generate'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Kind',
		name: 'kind',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Image', value: 'image', description: 'A picture from a prompt, optionally guided by reference images' },
			{ name: 'Video', value: 'video', description: 'A short clip from a prompt or from a photo (image-to-video)' },
			{ name: 'Music', value: 'music', description: 'A song: two takes per run, each an MP3 with cover art' },
		],
		default: 'image',
		displayOptions: { show },
		description: 'What to generate. It decides which models are offered.',
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		displayOptions: { show },
		description: 'The model that makes the file. The list shows each model\'s price in credits at its default options.',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
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
	{
		displayName: 'Music Mode Name or ID',
		name: 'musicMode',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getMusicModes', loadOptionsDependsOn: ['model.value'] },
		default: 'Describe',
		displayOptions: { show: { ...show, kind: ['music'] } },
		description: 'Describe: one sentence about the song, lyrics are written for you. Lyrics: your own lyrics, sung in order. Instrumental: no vocals, describe the sound. Every mode costs the same per run. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		displayOptions: { show },
		description:
			'What to make, in plain words. For music: a sentence (Describe), your lyrics with [Verse]/[Chorus] marks (Lyrics) or the wanted sound (Instrumental). The length limit depends on the model and mode.',
	},
	{
		displayName: 'Options',
		name: 'modelOptions',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		displayOptions: { show },
		typeOptions: {
			loadOptionsDependsOn: ['model.value', 'musicMode'],
			resourceMapper: {
				resourceMapperMethod: 'getModelOptionFields',
				mode: 'add',
				fieldWords: { singular: 'option', plural: 'options' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
		description: 'Only the options this model accepts are offered, with their allowed values. Options you leave out use the model default (shown in each name).',
	},
	{
		displayName: 'Reference Images (Binary Properties)',
		name: 'referenceImageProperties',
		type: 'string',
		default: '',
		placeholder: 'e.g. data, photo2',
		displayOptions: { show: { ...show, kind: ['image', 'video'] } },
		description:
			'Names of binary properties on the input item holding reference images (PNG, JPEG or WebP, up to 10 MB each), separated by commas. They are uploaded first. Makes the run image-to-image or image-to-video. Leave empty for text only.',
	},
	{
		displayName: 'Reference Image URLs',
		name: 'referenceImageUrls',
		type: 'string',
		default: '',
		placeholder: 'https://example.com/photo.jpg',
		displayOptions: { show: { ...show, kind: ['image', 'video'] } },
		description: 'Public https addresses of reference images, separated by commas or new lines. Together with the binary ones, at most the model\'s limit (and never more than 14).',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Driving Audio (Binary Property)',
				name: 'audioProperty',
				type: 'string',
				default: '',
				description: 'Talking-avatar video models only: the binary property holding the voice (MP3, WAV or M4A, up to 50 MB). It is uploaded first; the price follows its real length.',
			},
			{
				displayName: 'Driving Audio URL',
				name: 'audioUrl',
				type: 'string',
				default: '',
				description: 'Talking-avatar video models only: an audio address returned by File → Upload',
			},
			{
				displayName: 'End Frame (Binary Property)',
				name: 'endFrameProperty',
				type: 'string',
				default: '',
				description: 'Video models that support it: the binary property holding the image the clip should end on',
			},
			{
				displayName: 'End Frame URL',
				name: 'endFrameUrl',
				type: 'string',
				default: '',
				description: 'Video models that support it: the address of the image the clip should end on',
			},
			{
				displayName: 'Negative Prompt',
				name: 'negativePrompt',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				description: 'What to keep out of the result, up to 2,000 characters. Only models that use it accept it.',
			},
			{
				displayName: 'Request Key',
				name: 'requestKey',
				type: 'string',
				default: '',
				description:
					'Up to 120 characters. Sending the same key again returns the first run instead of charging again. Leave empty: the node makes one per execution and item, so retries are never charged twice.',
			},
			{
				displayName: 'Webhook URL',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'https://your-n8n.example.com/webhook/…',
				description:
					'An https address (up to 500 characters) that receives the finished run, for example the production URL of a Media Generation Trigger node. It replaces the account\'s registered endpoints for this run.',
			},
		],
	},
	...runSettingsFields(show),
];

export function splitList(value: unknown): string[] {
	return String(value ?? '')
		.split(/[\n,]/)
		.map((s) => s.trim())
		.filter(Boolean);
}

interface Draft {
	body: IDataObject;
	files: Array<{ file: PreparedFile; field: string; target: 'image' | 'end' | 'audio' }>;
}

/** Reads and checks one item's parameters; throws before any request that could spend credits. */
async function prepare(ctx: IExecuteFunctions, identity: Identity, itemIndex: number): Promise<Draft> {
	const kind = ctx.getNodeParameter('kind', itemIndex) as MediaKind;
	const modelId = String(ctx.getNodeParameter('model', itemIndex, '', { extractValue: true }) ?? '').trim();
	if (!modelId) {
		throw new NodeOperationError(ctx.getNode(), 'Model: no model selected', { description: `Pick a ${kind} model from the list.`, itemIndex });
	}
	const prompt = String(ctx.getNodeParameter('prompt', itemIndex, ''));
	const mapped = ctx.getNodeParameter('modelOptions', itemIndex, { value: null }) as ResourceMapperValue;
	const musicMode = kind === 'music' ? String(ctx.getNodeParameter('musicMode', itemIndex, '') || '') || undefined : undefined;
	const extra = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const imageProps = kind === 'music' ? [] : splitList(ctx.getNodeParameter('referenceImageProperties', itemIndex, ''));
	const imageUrls = kind === 'music' ? [] : splitList(ctx.getNodeParameter('referenceImageUrls', itemIndex, ''));
	const model: CatalogueModel = findModel(ctx, await getModels(ctx, identity), modelId, kind, itemIndex);
	const { options, problems } = resolveOptions(model, (mapped?.value ?? {}) as Record<string, unknown>, musicMode);
	const requestKey = String(extra.requestKey ?? '').trim() || undefined;
	const audioUrl = String(extra.audioUrl ?? '').trim();
	const audioProperty = String(extra.audioProperty ?? '').trim();
	const endFrameUrl = String(extra.endFrameUrl ?? '').trim();
	const endFrameProperty = String(extra.endFrameProperty ?? '').trim();
	problems.push(
		...checkRequest(model, {
			prompt,
			musicMode: options.tier,
			negativePrompt: String(extra.negativePrompt ?? '') || undefined,
			imageCount: imageProps.length + imageUrls.length,
			hasEndFrame: Boolean(endFrameUrl || endFrameProperty),
			hasAudio: Boolean(audioUrl || audioProperty),
			webhookUrl: String(extra.webhookUrl ?? '').trim() || undefined,
			requestKey,
			identity: identity.kind,
		}),
	);
	for (const url of [...imageUrls, ...(endFrameUrl ? [endFrameUrl] : []), ...(audioUrl ? [audioUrl] : [])]) {
		if (!/^https?:\/\/\S+$/i.test(url)) problems.push(`"${url}" is not a URL. Give full https:// addresses.`);
	}
	if (problems.length) {
		throw new NodeOperationError(ctx.getNode(), problems.length === 1 ? problems[0] : `${problems.length} problems with this request: ${problems.join(' ')}`, {
			description: `Nothing was sent and nothing was charged. ${model.name} (${model.id}) accepts: prompt up to ${model.prompt_max_chars} characters, at most ${model.reference_images_max} reference images.`,
			itemIndex,
		});
	}
	const files: Draft['files'] = [];
	for (const p of imageProps) files.push({ file: await prepareBinaryFile(ctx, itemIndex, p, 'Reference Images', ['image']), field: 'Reference Images', target: 'image' });
	if (endFrameProperty) files.push({ file: await prepareBinaryFile(ctx, itemIndex, endFrameProperty, 'End Frame', ['image']), field: 'End Frame', target: 'end' });
	if (audioProperty) files.push({ file: await prepareBinaryFile(ctx, itemIndex, audioProperty, 'Driving Audio', ['audio']), field: 'Driving Audio', target: 'audio' });
	const body: IDataObject = { kind, model: model.id, prompt, options: options as IDataObject };
	if (imageUrls.length) body.imageUrls = imageUrls;
	if (endFrameUrl) body.endImageUrl = endFrameUrl;
	if (audioUrl) body.audioUrl = audioUrl;
	if (extra.negativePrompt) body.negativePrompt = String(extra.negativePrompt);
	if (extra.webhookUrl) body.webhookUrl = String(extra.webhookUrl).trim();
	body.requestKey = requestKey ?? defaultRequestKey(ctx, itemIndex);
	return { body, files };
}

export async function generateOne(ctx: IExecuteFunctions, identity: Identity, itemIndex: number): Promise<INodeExecutionData> {
	const { body, files } = await prepare(ctx, identity, itemIndex);
	const uploadedImages: string[] = [];
	for (const f of files) {
		const { url } = await uploadFile(ctx, identity, f.file, itemIndex, f.field);
		if (f.target === 'image') uploadedImages.push(url);
		else if (f.target === 'end') body.endImageUrl = url;
		else body.audioUrl = url;
	}
	if (uploadedImages.length) body.imageUrls = [...uploadedImages, ...((body.imageUrls as string[]) ?? [])];
	return await runToItem(ctx, identity, body, readRunSettings(ctx, itemIndex), itemIndex);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const identity = await getIdentity(this);
	return await executeBatch(this, identity, (i) => generateOne(this, identity, i));
}
