// One item's run request, from the item to the POST body. Generate and Run Look each read their fields into it, and
// checkedRequest (checkRequest.ts) checks it and adds its key, settings and cap; the price book, the spending cap, the
// batch path, error items and pause mode read it. Binary files are uploaded just before submitting (free).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { CatalogueModel } from '../../shared/records';
import { uploadFile, type PreparedFile } from '../files/upload';
import type { BatchKeys } from './requestKey';
import type { RunSettings } from './runSettings';

/** A reference file: an address sent as it is, or a binary property uploaded just before submitting. */
export type FileSource = { field: string } & ({ url: string } | { file: PreparedFile });

export interface RunRequest {
	itemIndex: number;
	model: CatalogueModel;
	/** The POST body but its files: kind, model, prompt, options, negativePrompt, webhookUrl, requestKey. */
	body: IDataObject;
	/** Reference images, in the order they are sent. */
	images: FileSource[];
	endFrame?: FileSource;
	audio?: FileSource;
	settings: RunSettings;
	/** Request Key was typed (else the node's default, unique per item). */
	typedKey: boolean;
	/** Max Credits per Execution; undefined for no cap. */
	maxCredits?: number;
	/** Fields added to the output item (Run Look's app and look). */
	extraJson?: IDataObject;
	/** The step's request keys, once assigned, for the advice to send them again. */
	batchKeys?: BatchKeys;
}

/** What an operation reads from an item; checkedRequest adds the rest. */
export type ItemRead = Pick<RunRequest, 'itemIndex' | 'model' | 'body' | 'images' | 'endFrame' | 'audio' | 'extraJson'>;

/** The request's body with every reference file as an address: files from binary properties are uploaded (free). */
export async function withFileAddresses(ctx: IExecuteFunctions, request: RunRequest): Promise<IDataObject> {
	const addressOf = async (source: FileSource) =>
		'url' in source ? source.url : (await uploadFile(ctx, source.file, request.itemIndex, source.field)).url;
	const body = { ...request.body };
	const images: string[] = [];
	for (const source of request.images) images.push(await addressOf(source));
	if (images.length) body.imageUrls = images;
	if (request.endFrame) body.endImageUrl = await addressOf(request.endFrame);
	if (request.audio) body.audioUrl = await addressOf(request.audio);
	return body;
}

/** What the item asked for (kind, model, prompt, options; app and look for Run Look), for its error item. */
export function askedFor(request: RunRequest): IDataObject {
	const { kind, model, prompt, options } = request.body;
	return { kind, model, prompt, options, ...request.extraJson };
}
