// One item of Generate or Run Look, read and checked, as the batch path and pause mode both take it: its
// request, its reference files, and what it would cost.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { CatalogueModel } from '../../shared/records';
import { uploadFile, type PreparedFile } from '../files/upload';
import type { RunSettings } from './runSettings';
import type { PriceRequest } from '../cost/priceBook';
import type { BatchKeys } from './requestKey';

/** A reference file: an address to send as it is, or a binary property to upload just before submitting. */
export type FileSource = { url: string } | { file: PreparedFile; field: string };

/** One item, read and checked, ready to submit. */
export interface PreparedRun {
	itemIndex: number;
	/** The request without its files (imageUrls, endImageUrl, audioUrl come from the sources below). */
	body: IDataObject;
	/** Reference images, in the order they are sent. */
	images: FileSource[];
	endFrame?: FileSource;
	audio?: FileSource;
	settings: RunSettings;
	model: CatalogueModel;
	/** Whether the request key was typed by the user (else the node's default, unique per item). */
	typedKey: boolean;
	/** Max Credits per Execution; undefined for no cap. */
	maxCredits?: number;
	/** Fields added to the output item (for example the app and look). */
	extraJson?: IDataObject;
	/** The request keys of the item's batch (set once its keys are assigned), for the advice to send them again. */
	batchKeys?: BatchKeys;
}

/** The item's request with every reference file as an address: files from binary properties are uploaded (free). */
export async function withFileAddresses(ctx: IExecuteFunctions, p: PreparedRun): Promise<IDataObject> {
	const addressOf = async (source: FileSource) =>
		'url' in source ? source.url : (await uploadFile(ctx, source.file, p.itemIndex, source.field)).url;
	const body = { ...p.body };
	const images: string[] = [];
	for (const source of p.images) images.push(await addressOf(source));
	if (images.length) body.imageUrls = images;
	if (p.endFrame) body.endImageUrl = await addressOf(p.endFrame);
	if (p.audio) body.audioUrl = await addressOf(p.audio);
	return body;
}

/** What the price book needs to price an item: its model, the options it sends and its driving audio. */
export function priceRequestOf(p: PreparedRun): PriceRequest {
	return {
		model: p.model,
		options: (p.body.options ?? {}) as Record<string, unknown>,
		hasAudio: Boolean(p.audio),
		audioUrl: p.audio && 'url' in p.audio ? p.audio.url : undefined,
	};
}
