// Files in: reads and checks an item's binary property before anything is sent, then uploads it through a
// signed slot (streamed when n8n keeps binary data on disk).
import type { IBinaryData, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { uploadSlotProblem } from '../../shared/responseChecks';
import { canonicalMediaType, MB, MEDIA_TYPES } from '../../shared/mediaTypes';
import { apiRequest, NOTHING_CHARGED_OPENING } from '../../shared/transport';

/** A readable stream, as n8n's binary helpers hand it out (no stream import needed). */
type Readable = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export const SIZE_CAPS = { image: 10 * MB, video: 50 * MB, audio: 50 * MB };

/** Media type from the binary data, falling back to the file extension. */
export function mediaTypeOf(binary: IBinaryData): string {
	const declared = canonicalMediaType(binary.mimeType ?? '');
	if (declared) return declared;
	const ext = (binary.fileExtension ?? binary.fileName?.split('.').pop() ?? '').toLowerCase();
	const byExt = Object.keys(MEDIA_TYPES).find((type) => MEDIA_TYPES[type].ext === (ext === 'jpeg' ? 'jpg' : ext));
	return byExt ?? (binary.mimeType ?? '').split(';')[0].trim().toLowerCase();
}

export interface PreparedFile {
	property: string;
	mime: string;
	bytes: number;
	open(): Promise<Readable | Buffer>;
}

/**
 * Reads and checks a binary property before any request: type, family and size cap. Its refusals leave "nothing
 * was charged" to the caller (`saysNothingSent`), which knows that nothing at all was sent.
 */
export async function prepareBinaryFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
	field: string,
	families: Array<'image' | 'video' | 'audio'>,
): Promise<PreparedFile> {
	const refuse = (message: string, description?: string) =>
		new NodeOperationError(ctx.getNode(), `${field}: ${message}`, { description, itemIndex });
	const item = ctx.getInputData()[itemIndex];
	if (!item?.binary?.[property]) {
		const available = Object.keys(item?.binary ?? {});
		throw refuse(
			`the input item has no binary property "${property}"`,
			available.length
				? `Binary properties on this item: ${available.join(', ')}. Enter one of them.`
				: 'This item carries no files. Add a node before this one that reads or downloads the file ' +
						'(for example Read/Write Files from Disk or HTTP Request), or give a URL instead.',
		);
	}
	const binary = item.binary[property];
	const mime = mediaTypeOf(binary);
	const type = MEDIA_TYPES[mime];
	if (!type || !families.includes(type.family)) {
		const allowed = Object.values(MEDIA_TYPES).filter((t) => families.includes(t.family));
		throw refuse(
			`the file in "${property}" is ${mime || 'of an unknown type'}, which is not accepted here. ` +
				`Accepted types: ${allowed.map((t) => t.label).join(', ')}`,
			'Convert the file to one of the accepted types, or pick another one.',
		);
	}
	// With an id n8n keeps the file on disk: it is streamed from there; otherwise it is in memory.
	const id = binary.id;
	const buffer = id ? undefined : await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
	const bytes = id ? Number((await ctx.helpers.getBinaryMetadata(id)).fileSize ?? binary.bytes ?? 0) : buffer!.length;
	const open = async () => (id ? await ctx.helpers.getBinaryStream(id) : buffer!);
	const cap = SIZE_CAPS[type.family];
	if (bytes > cap) {
		throw refuse(
			`the file ${binary.fileName ? `"${binary.fileName}" ` : ''}in "${property}" is ` +
				`${(bytes / MB).toFixed(1)} MB (${bytes} bytes); ${type.family} files may be at most ${cap / MB} MB ` +
				`(${cap} bytes)`,
			'Shrink or compress the file, then run again.',
		);
	}
	if (bytes === 0) throw refuse(`the file in "${property}" is empty`);
	return { property, mime, bytes, open };
}

function messageOf(body: unknown): string {
	try {
		const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
		return (JSON.parse(text) as { message?: string }).message ?? '';
	} catch {
		return '';
	}
}

/**
 * The refusal of a PUT to a signed upload address: expired only when the slot's time has passed (`expiredAfter`: its
 * validity in seconds) or the service says so; any other 403 (a refused signature) says what it is.
 */
export function uploadRefusal(
	node: INode,
	field: string,
	response: { statusCode: number; body: unknown },
	expiredAfter: number | undefined,
	itemIndex: number,
): NodeOperationError {
	const detail = messageOf(response.body);
	const minutes = Math.round((expiredAfter ?? 300) / 60) || 5;
	const [message, advice] =
		expiredAfter !== undefined || /expire/i.test(detail)
			? [
					`the upload slot expired before the file was sent (slots are valid for ${minutes} minutes)`,
					'Run the node again to get a fresh slot. Very large files on a slow link may need a faster connection.',
				]
			: [
					`the upload address refused the file (HTTP ${response.statusCode})${detail ? `: ${detail}` : ''}`,
					'Run the node again (each run asks for a new upload slot); if it happens again, check that nothing ' +
						'between n8n and the service (a proxy) changes the upload address.',
				];
	return new NodeOperationError(node, `${field}: ${message}`, {
		description: `${advice} ${NOTHING_CHARGED_OPENING}.`,
		itemIndex,
	});
}

/** POST /uploads for a slot, then PUT the bytes (streamed) to the signed address. */
export async function uploadFile(
	ctx: IExecuteFunctions,
	file: PreparedFile,
	itemIndex: number,
	field: string,
): Promise<{ url: string; mime: string; bytes: number }> {
	// The slot's validity counts from before it was asked for, so "expired" is said only when it surely is.
	const askedAt = Date.now();
	const slot = await apiRequest<{ upload_url: string; url: string; expires_in: number }>(ctx, {
		method: 'POST',
		path: '/uploads',
		body: { mime: file.mime, bytes: file.bytes },
		retryTransient: 2,
		itemIndex,
		expect: uploadSlotProblem,
	});
	const { upload_url: uploadUrl, url } = slot.body;
	// The signed address carries its own authorisation; the API key is never sent to it.
	const response = (await ctx.helpers.httpRequest({
		method: 'PUT',
		url: uploadUrl,
		body: (await file.open()) as unknown as Buffer,
		headers: { 'Content-Type': file.mime, 'Content-Length': file.bytes },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		json: false,
		disableFollowRedirect: true,
		timeout: 10 * 60_000,
	})) as { statusCode: number; body: unknown };
	if (response.statusCode < 200 || response.statusCode >= 300) {
		const expired = Date.now() > askedAt + Number(slot.body.expires_in) * 1000;
		throw uploadRefusal(ctx.getNode(), field, response, expired ? slot.body.expires_in : undefined, itemIndex);
	}
	return { url, mime: file.mime, bytes: file.bytes };
}
