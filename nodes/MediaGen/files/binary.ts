// Files in and out: uploads an item's binary property through a signed slot (streamed when n8n
// keeps binary data on disk), and turns run outputs into n8n binary data (streamed too).
import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

/** A readable stream, as n8n's binary helpers hand it out (no stream import needed). */
type Readable = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, type Identity } from '../../shared/transport';
import { uploadSlotProblem } from '../../shared/answers';
import type { RunOutput, RunRecord } from '../../shared/records';

export const MB = 1024 * 1024;

/** Every media type the node reads or writes: its family, label, extension and other names for it. */
export const MEDIA_TYPES: Record<
	string,
	{ family: 'image' | 'video' | 'audio'; label: string; ext: string; aliases: string[] }
> = {
	'image/png': { family: 'image', label: 'PNG', ext: 'png', aliases: [] },
	'image/jpeg': { family: 'image', label: 'JPEG', ext: 'jpg', aliases: ['image/jpg', 'image/pjpeg', 'jpeg'] },
	'image/webp': { family: 'image', label: 'WebP', ext: 'webp', aliases: [] },
	'video/mp4': { family: 'video', label: 'MP4', ext: 'mp4', aliases: [] },
	'video/quicktime': { family: 'video', label: 'MOV', ext: 'mov', aliases: [] },
	'audio/mpeg': { family: 'audio', label: 'MP3', ext: 'mp3', aliases: ['audio/mp3', 'audio/mpeg3'] },
	'audio/wav': { family: 'audio', label: 'WAV', ext: 'wav', aliases: ['audio/x-wav', 'audio/wave', 'audio/vnd.wave'] },
	'audio/mp4': { family: 'audio', label: 'M4A', ext: 'm4a', aliases: ['audio/x-m4a', 'audio/m4a'] },
};

export const SIZE_CAPS = { image: 10 * MB, video: 50 * MB, audio: 50 * MB };

/** The canonical media type for a declared type or an alias of it ("image/jpg" → "image/jpeg"). */
export function canonicalMediaType(declared: string): string | undefined {
	const value = declared.split(';')[0].trim().toLowerCase();
	if (MEDIA_TYPES[value]) return value;
	return Object.keys(MEDIA_TYPES).find((type) => MEDIA_TYPES[type].aliases.includes(value));
}

/** Media type from the binary data, falling back to the file extension. */
export function mediaTypeOf(binary: IBinaryData): string {
	const declared = canonicalMediaType(binary.mimeType ?? '');
	if (declared) return declared;
	const ext = (binary.fileExtension ?? binary.fileName?.split('.').pop() ?? '').toLowerCase();
	const byExt = Object.keys(MEDIA_TYPES).find(
		(type) => MEDIA_TYPES[type].ext === ext || (ext === 'jpeg' && type === 'image/jpeg'),
	);
	return byExt ?? (binary.mimeType ?? '').split(';')[0].trim().toLowerCase();
}

export interface PreparedFile {
	property: string;
	mime: string;
	bytes: number;
	open(): Promise<Readable | Buffer>;
}

/** Reads and checks a binary property before any request: type, family and size cap. */
export async function prepareBinaryFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
	field: string,
	families: Array<'image' | 'video' | 'audio'>,
): Promise<PreparedFile> {
	const item = ctx.getInputData()[itemIndex];
	if (!item?.binary?.[property]) {
		const available = Object.keys(item?.binary ?? {});
		throw new NodeOperationError(ctx.getNode(), `${field}: the input item has no binary property "${property}"`, {
			description: available.length
				? `Binary properties on this item: ${available.join(', ')}. Enter one of them.`
				: 'This item carries no files. Add a node before this one that reads or downloads the file ' +
					'(for example Read/Write Files from Disk or HTTP Request), or give a URL instead.',
			itemIndex,
		});
	}
	const binary = item.binary[property];
	const mime = mediaTypeOf(binary);
	const type = MEDIA_TYPES[mime];
	const allowed = Object.entries(MEDIA_TYPES)
		.filter(([, t]) => families.includes(t.family))
		.map(([, t]) => t.label)
		.filter((l, i, a) => a.indexOf(l) === i);
	if (!type || !families.includes(type.family)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${field}: the file in "${property}" is ${mime || 'of an unknown type'}, which is not accepted here. ` +
				`Accepted types: ${allowed.join(', ')}`,
			{
				description: 'Convert the file to one of the accepted types, or pick another one. Nothing was sent or charged.',
				itemIndex,
			},
		);
	}
	let bytes: number;
	let open: () => Promise<Readable | Buffer>;
	if (binary.id) {
		const id = binary.id;
		const meta = await ctx.helpers.getBinaryMetadata(id);
		bytes = Number(meta.fileSize ?? binary.bytes ?? 0);
		open = async () => await ctx.helpers.getBinaryStream(id);
	} else {
		const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		bytes = buffer.length;
		open = async () => buffer;
	}
	const cap = SIZE_CAPS[type.family];
	if (bytes > cap) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${field}: the file in "${property}" is ${(bytes / MB).toFixed(1)} MB; ` +
				`${type.family} files may be at most ${cap / MB} MB`,
			{
				description: 'Shrink or compress the file, then run again. Nothing was sent or charged.',
				itemIndex,
			},
		);
	}
	if (bytes === 0) {
		throw new NodeOperationError(ctx.getNode(), `${field}: the file in "${property}" is empty`, { itemIndex });
	}
	return { property, mime, bytes, open };
}

export interface UploadResult {
	url: string;
	mime: string;
	bytes: number;
}

/** POST /uploads for a slot, then PUT the bytes (streamed) to the signed address. */
export async function uploadFile(
	ctx: IExecuteFunctions,
	identity: Identity,
	file: PreparedFile,
	itemIndex: number,
	field: string,
): Promise<UploadResult> {
	const slot = await apiRequest<{ upload_url: string; url: string; expires_in: number }>(
		ctx,
		{
			method: 'POST',
			path: '/uploads',
			body: { mime: file.mime, bytes: file.bytes },
			retryTransient: 2,
			itemIndex,
			expect: uploadSlotProblem,
		},
		identity,
	);
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
		let detail = '';
		try {
			const text = Buffer.isBuffer(response.body)
				? response.body.toString('utf8')
				: typeof response.body === 'string'
					? response.body
					: JSON.stringify(response.body);
			detail = (JSON.parse(text) as { message?: string }).message ?? '';
		} catch {
			detail = '';
		}
		const expired = /expire/i.test(detail) || response.statusCode === 403;
		throw new NodeOperationError(
			ctx.getNode(),
			expired
				? `${field}: the upload slot expired before the file was sent ` +
					`(slots are valid for ${Math.round(slot.body.expires_in / 60) || 5} minutes)`
				: `${field}: sending the file failed (HTTP ${response.statusCode})${detail ? `: ${detail}` : ''}`,
			{
				description: expired
					? 'Run the node again to get a fresh slot. Very large files on a slow link may need a faster connection.'
					: 'Run the node again. Nothing was charged: files are only charged as part of a run.',
				itemIndex,
			},
		);
	}
	return { url, mime: file.mime, bytes: file.bytes };
}

function extensionOf(mime: string, url: string): string {
	const fromUrl = /\.([a-z0-9]{2,4})(?:\?|$)/i.exec(url)?.[1];
	const type = canonicalMediaType(mime);
	return (type && MEDIA_TYPES[type].ext) ?? fromUrl ?? 'bin';
}

/** Where song covers go: cover, cover_1 … unless the files themselves are put there ("Put Files In" = cover). */
export function coverPrefix(prefix: string, outputs: number): string {
	const fileNames = new Set(Array.from({ length: outputs }, (_, n) => (n === 0 ? prefix : `${prefix}_${n}`)));
	const clashes = Array.from({ length: outputs }, (_, n) => (n === 0 ? 'cover' : `cover_${n}`)).some((p) =>
		fileNames.has(p),
	);
	return clashes ? `${prefix}_cover` : 'cover';
}

/**
 * A file name a person can tell apart from its neighbours: the prompt's first words, then the end of the run
 * id (identical prompts make different runs), e.g. "a-lighthouse-at-dawn-3f9c2a.png". The full run id stays
 * in the item's JSON.
 */
export function outputFileName(run: RunRecord, part: string, extension: string): string {
	const words = String(run.prompt ?? '')
		.toLowerCase()
		.normalize('NFKD')
		.replace(/[^a-z0-9]+/g, ' ')
		.trim()
		.split(' ')
		.filter(Boolean)
		.slice(0, 6);
	let stem = '';
	for (const word of words) if (`${stem}-${word}`.length <= 40) stem = stem ? `${stem}-${word}` : word;
	const tail = run.id.replace(/^gen_/, '').slice(-6);
	return `${stem || run.kind || 'run'}-${tail}${part}.${extension}`;
}

export interface DownloadedOutputs {
	binary: Record<string, IBinaryData>;
	files: Array<{ property: string; fileName: string; mime: string; kind: 'output' | 'cover' }>;
}

/**
 * Downloads every output (and music covers) into binary properties `<prefix>`, `<prefix>_1`, … and
 * `cover`, `cover_1`, …
 */
export async function downloadOutputs(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	prefix: string,
): Promise<DownloadedOutputs> {
	const result: DownloadedOutputs = { binary: {}, files: [] };
	const outputs: RunOutput[] = run.outputs ?? [];
	const covers = coverPrefix(prefix, outputs.length);
	for (const [n, output] of outputs.entries()) {
		const suffix = n === 0 ? '' : `_${n}`;
		const targets: Array<{ url: string; mime: string; property: string; kind: 'output' | 'cover' }> = [
			{ url: output.url, mime: output.mime, property: `${prefix}${suffix}`, kind: 'output' },
		];
		if (output.cover) targets.push({ url: output.cover, mime: '', property: `${covers}${suffix}`, kind: 'cover' });
		for (const t of targets) {
			const response = (await ctx.helpers.httpRequest({
				method: 'GET',
				url: t.url,
				encoding: 'stream',
				returnFullResponse: true,
				timeout: 10 * 60_000,
			})) as { body: Readable; headers: Record<string, string> };
			const mime = t.mime || String(response.headers['content-type'] ?? 'application/octet-stream').split(';')[0];
			const fileName = outputFileName(run, `${t.kind === 'cover' ? '-cover' : ''}${suffix}`, extensionOf(mime, t.url));
			result.binary[t.property] = await ctx.helpers.prepareBinaryData(response.body, fileName, mime);
			result.files.push({ property: t.property, fileName, mime, kind: t.kind });
		}
	}
	return result;
}
