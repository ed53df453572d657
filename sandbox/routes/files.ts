/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Everything served outside the API: output and upload files, example media, openapi.yaml and app pages.
import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';

import { ApiFailure } from '../apiFailure';
import type { Exchange, SandboxContext } from '../http/context';
import { CORS } from '../http/respond';
import { audioFile, imageFile, type MediaFile, videoFile } from '../media';

const UPLOAD_FILE = /^\/files\/uploads\/([a-z0-9_]+)\.[a-z0-9]+$/i;
/** /files/outputs/<run id>/<output index>[-cover].<extension> */
const OUTPUT_FILE = /^\/files\/outputs\/([a-z0-9_]+)\/(\d+)(-cover)?\.([a-z0-9]+)$/i;
const EXAMPLE_FILE = /^\/examples\/([a-z0-9-]+)\.(png|mp4)$/i;

function noSuchFile(): ApiFailure {
	return new ApiFailure(404, 'not_found', 'No such file');
}

/** A successful run's output, made on the fly from the run (outputs are not stored). */
function outputFile(ctx: SandboxContext, match: RegExpExecArray): MediaFile {
	const [, runId, indexText, cover] = match;
	const run = ctx.engine.runs.get(runId);
	if (!run || run.status !== 'SUCCEEDED') throw noSuchFile();
	const minBytes = ctx.config.outputBytes;
	if (cover) return imageFile('PNG', `${run.id}-cover-${indexText}`);
	if (run.kind === 'image') {
		return imageFile(run.options.format ?? 'PNG', run.id, minBytes, run.watermarked ? 'watermarked' : '');
	}
	if (run.kind === 'video') return videoFile(run.options.duration ?? 5, minBytes);
	const song = run.outputs[Number(indexText)];
	return audioFile(song?.title ?? 'Song', song?.seconds ?? 30, minBytes);
}

/** GET or HEAD /files/… and /examples/…: received uploads, run outputs and example media. */
export async function serveFile(ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const { req, res, url } = exchange;
	const upload = UPLOAD_FILE.exec(url.pathname);
	if (upload) {
		const received = ctx.engine.uploads.get(upload[1]);
		if (!received?.received || !received.filePath) throw noSuchFile();
		res.writeHead(200, { ...CORS, 'content-type': received.mime, 'content-length': received.bytes });
		createReadStream(received.filePath).pipe(res);
		return;
	}
	const output = OUTPUT_FILE.exec(url.pathname);
	const example = EXAMPLE_FILE.exec(url.pathname);
	let file: MediaFile;
	if (output) file = outputFile(ctx, output);
	else if (example) file = example[2] === 'mp4' ? videoFile(5) : imageFile('PNG', example[1]);
	else throw noSuchFile();
	res.writeHead(200, {
		...CORS,
		'content-type': file.mime,
		'content-length': file.size,
		'cache-control': 'public, max-age=31536000, immutable',
	});
	if (req.method === 'HEAD') {
		res.end();
		return;
	}
	if (output) ctx.engine.outputDownloads.set(output[1], (ctx.engine.outputDownloads.get(output[1]) ?? 0) + 1);
	file.stream().pipe(res);
}

export async function serveOpenapi(_ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const text = readFileSync(path.join(__dirname, '..', 'openapi.yaml'), 'utf8');
	exchange.res.writeHead(200, { ...CORS, 'content-type': 'application/yaml' });
	exchange.res.end(text);
}

/** GET /apps/…: the page an app's link opens (the catalogue's app URLs point here). */
export async function serveAppPage(_ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const { res, url } = exchange;
	res.writeHead(200, { ...CORS, 'content-type': 'text/html' });
	res.end(`<!doctype html><title>App</title><p>App page ${url.pathname}${url.search}</p>`);
}
