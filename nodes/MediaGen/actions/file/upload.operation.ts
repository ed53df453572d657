// File → Upload: uploads an item's binary property through a signed slot and returns the URL
// to use as a reference image or driving audio.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { getIdentity } from '../../transport';
import { prepareBinaryFile, uploadFile } from '../../helpers/binary';
import { executeBatch } from '../../helpers/executeBatch';

const show = { resource: ['file'], operation: ['upload'] };

// Uploads are not runs, so the run concurrency does not apply; a few at once keeps memory and the 30-a-minute slot limit in check.
const UPLOADS_AT_ONCE = 3;

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Property',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show },
		description:
			'The binary property of the input item that holds the file. Accepted: PNG, JPEG, WebP (up to 10 MB), MP4, MOV, MP3, WAV, M4A (up to 50 MB). Uploading costs nothing.',
	},
];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const identity = await getIdentity(this);
	return await executeBatch(this, identity, async (i) => {
		const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
		const file = await prepareBinaryFile(this, i, property, 'Input Binary Property', ['image', 'video', 'audio']);
		const uploaded = await uploadFile(this, identity, file, i, 'Input Binary Property');
		return { json: { url: uploaded.url, mime: uploaded.mime, bytes: uploaded.bytes }, pairedItem: { item: i } };
	}, UPLOADS_AT_ONCE);
}
