// File → Upload: an item's file sent through a signed slot; returns its URL for a reference image or driving audio.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { NOTHING_CHARGED } from '../../../shared/transport';
import { prepareBinaryFile, uploadFile } from '../../files/upload';
import { saysNothingSent } from '../../run/runErrors';

export const properties: INodeProperties[] = [
	{
		displayName: 'File to Upload',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description:
			"Name of the input item's file, as its Binary tab shows it (e.g. data). Accepted: PNG, JPEG, WebP (up to " +
			`10 MB), MP4, MOV, MP3, WAV, M4A (up to 50 MB). An upload starts no run: ${NOTHING_CHARGED} for it.`,
	},
];

// Not runs, so the run concurrency does not apply; a few at once keep memory and the 30-a-minute slot limit in check.
export const itemsAtOnce = 3;

export async function executeItem(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
	const file = await prepareBinaryFile(this, i, property, 'File to Upload', ['image', 'video', 'audio']).catch(
		(error: Error) => Promise.reject(saysNothingSent(error)),
	);
	const uploaded = await uploadFile(this, file, i, 'File to Upload');
	return [{ json: { url: uploaded.url, mime: uploaded.mime, bytes: uploaded.bytes }, pairedItem: { item: i } }];
}
