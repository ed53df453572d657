/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Uploads in two steps: POST /v1/uploads opens a slot and hands out a signed URL; PUT /_uploads/:id fills it.
import { createWriteStream, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';

import { ApiFailure } from '../apiFailure';
import type { Exchange, SandboxContext } from '../http/context';
import { spendRateBudget } from '../http/rateBudget';
import { CORS, readBody, requestHeader, sendJson } from '../http/respond';
import { withUnknownFields } from '../strict';
import { MODERATION_MARKER } from '../markers';
import { EXTENSIONS } from '../media';
import { ACCEPTED_UPLOAD_TYPES, UPLOAD_CAPS, uploadRequestSchema, zodIssues } from '../validate';
import type { ApiCall } from './api';

/** The accepted types, as the refusal of another type lists them. */
const ACCEPTED_TYPES_TEXT =
	`mime must be one of PNG, JPEG, WebP, MP4, MOV, MP3, WAV, M4A ` +
	`(${Object.keys(ACCEPTED_UPLOAD_TYPES).join(', ')})`;

export async function openUploadSlot(ctx: SandboxContext, call: ApiCall): Promise<number> {
	const rate = spendRateBudget(ctx, 'upload', call.caller, call.address);
	const parsed = uploadRequestSchema.safeParse(await readBody(call.req));
	if (!parsed.success) throw new ApiFailure(400, 'invalid', 'Invalid upload request', zodIssues(parsed.error), rate);
	const { mime, bytes } = parsed.data;
	const family = ACCEPTED_UPLOAD_TYPES[mime.toLowerCase()];
	if (!family) throw new ApiFailure(400, 'invalid', `Type ${mime} is not accepted`, [ACCEPTED_TYPES_TEXT], rate);
	if (bytes > UPLOAD_CAPS[family]) {
		const megabytes = UPLOAD_CAPS[family] / 1_000_000;
		throw new ApiFailure(413, 'too_large', `${family} files may be at most ${megabytes} MB`, undefined, rate);
	}
	const { engine, config } = ctx;
	const upload = engine.openUploadSlot(call.caller.ownerId, mime.toLowerCase(), bytes);
	const answer = {
		upload_url: `${engine.rootUrl}/_uploads/${upload.id}?sig=${ctx.signUpload(upload.id)}`,
		url: `${engine.rootUrl}/files/uploads/${upload.id}.${EXTENSIONS[upload.mime] ?? 'bin'}`,
		expires_in: Math.max(1, Math.round(300 * config.timeScale)),
	};
	sendJson(call.res, 200, withUnknownFields(answer, config.strict), rate);
	return 200;
}

/** Writes the body to `filePath`, stopping past `maxBytes`; notes whether it holds the moderation marker. */
async function saveBody(
	req: IncomingMessage,
	filePath: string,
	maxBytes: number,
): Promise<{ size: number; hasModerationMarker: boolean }> {
	const out = createWriteStream(filePath);
	let size = 0;
	let hasModerationMarker = false;
	// The marker may straddle two chunks: keep the end of the previous one.
	let tail = '';
	for await (const c of req) {
		const chunk = c as Buffer;
		size += chunk.length;
		if (size > maxBytes) break;
		const text = tail + chunk.toString('latin1');
		if (text.includes(MODERATION_MARKER)) hasModerationMarker = true;
		tail = text.slice(-MODERATION_MARKER.length);
		if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	}
	await new Promise<void>((resolve) => out.end(() => resolve()));
	return { size, hasModerationMarker };
}

export async function receiveUpload(ctx: SandboxContext, exchange: Exchange): Promise<number> {
	const { req, res, url } = exchange;
	const uploadId = url.pathname.split('/').pop() ?? '';
	const upload = ctx.engine.uploads.get(uploadId);
	if (!upload || url.searchParams.get('sig') !== ctx.signUpload(uploadId)) {
		throw new ApiFailure(403, 'invalid', 'The upload signature is not valid');
	}
	if (Date.now() > upload.expiresAt) {
		throw new ApiFailure(403, 'invalid', 'The upload slot has expired; ask for a new one with POST /uploads');
	}
	if (upload.received) throw new ApiFailure(409, 'invalid', 'This upload slot was already used');
	const type = (requestHeader(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (type !== upload.mime) {
		throw new ApiFailure(400, 'invalid', `Content-Type must be ${upload.mime}, as declared`, [
			`Content-Type: expected ${upload.mime}, got ${type || 'none'}`,
		]);
	}
	const filePath = path.join(ctx.uploadDir, uploadId);
	const { size, hasModerationMarker } = await saveBody(req, filePath, upload.bytes);
	if (size !== upload.bytes) {
		rmSync(filePath, { force: true });
		const comparison = size > upload.bytes ? 'more' : 'fewer';
		throw new ApiFailure(400, 'invalid', `The body has ${comparison} bytes than the ${upload.bytes} declared`, [
			`bytes: declared ${upload.bytes}`,
		]);
	}
	upload.received = true;
	upload.filePath = filePath;
	upload.hasModerationMarker = hasModerationMarker;
	res.writeHead(200, { ...CORS, 'content-length': 0 });
	res.end();
	return 200;
}
