// Run outputs into n8n binary data, streamed: used by Generate, Get and Wait, the resume webhook and the trigger.
import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { canonicalMediaType, MEDIA_TYPES } from './mediaTypes';
import type { RunOutput, RunRecord } from './records';

/** A readable stream, as n8n's binary helpers hand it out (no stream import needed). */
type Readable = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

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
