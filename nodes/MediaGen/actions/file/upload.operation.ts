// File → Upload: uploads an item's binary property through a signed slot and returns the URL
// to use as a reference image or driving audio.
import type { INodeProperties } from 'n8n-workflow';

import { prepareBinaryFile, uploadFile } from '../../files/upload';
import { saysNothingSent } from '../../run/runErrors';
import type { ItemExecutor } from '../operation';

export const properties: INodeProperties[] = [
	{
		displayName: 'File to Upload',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description:
			"Name of the input item's file, as its Binary tab shows it (e.g. data). Accepted: PNG, JPEG, WebP (up to " +
			'10 MB), MP4, MOV, MP3, WAV, M4A (up to 50 MB). Uploading costs nothing.',
	},
];

// Uploads are not runs, so the run concurrency does not apply; a few at once keeps memory and the
// 30-a-minute slot limit in check.
export const itemsAtOnce = 3;

export const executeItem: ItemExecutor = async function (i) {
	const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
	const file = await prepareBinaryFile(this, i, property, 'File to Upload', ['image', 'video', 'audio']).catch(
		(error: Error) => Promise.reject(saysNothingSent(error)),
	);
	const uploaded = await uploadFile(this, file, i, 'File to Upload');
	return [{ json: { url: uploaded.url, mime: uploaded.mime, bytes: uploaded.bytes }, pairedItem: { item: i } }];
};
