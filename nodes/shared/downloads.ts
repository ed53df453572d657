// Run outputs into n8n binary data, streamed: used by Generate, Get and Wait, the resume webhook and the trigger.
import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { canonicalMediaType, MEDIA_TYPES } from './mediaTypes';
import type { RunRecord } from './records';

/** A readable stream, as n8n's binary helpers hand it out (no stream import needed). */
type Readable = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** `<p>`, `<p>_1`, `<p>_2` …: the binary properties of a run's files (and covers). */
function propertyNames(p: string, count: number): string[] {
	return Array.from({ length: count }, (_, n) => (n === 0 ? p : `${p}_${n}`));
}

/** Where song covers go: cover, cover_1 … unless the files themselves are put there ("Put Files In" = cover). */
export function coverPrefix(prefix: string, outputs: number): string {
	const files = new Set(propertyNames(prefix, outputs));
	return propertyNames('cover', outputs).some((p) => files.has(p)) ? `${prefix}_cover` : 'cover';
}

/** A file name a person tells apart: the prompt's first words, then the run id's end: "a-lighthouse-3f9c2a.png". */
function outputFileName(run: RunRecord, part: string, extension: string): string {
	const words = String(run.prompt ?? '')
		.toLowerCase()
		.normalize('NFKD')
		.split(/[^a-z0-9]+/)
		.filter(Boolean);
	let stem = '';
	for (const word of words.slice(0, 6)) if (`${stem}-${word}`.length <= 40) stem = stem ? `${stem}-${word}` : word;
	const tail = run.id.replace(/^gen_/, '').slice(-6);
	return `${stem || run.kind || 'run'}-${tail}${part}.${extension}`;
}

interface Target {
	url: string;
	mime: string;
	property: string;
	kind: 'output' | 'cover';
}

export async function downloadOutputs(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	prefix: string,
): Promise<{ binary: Record<string, IBinaryData>; files: Array<Omit<Target, 'url'> & { fileName: string }> }> {
	const outputs = run.outputs ?? [];
	const properties = propertyNames(prefix, outputs.length);
	const covers = propertyNames(coverPrefix(prefix, outputs.length), outputs.length);
	const result: Awaited<ReturnType<typeof downloadOutputs>> = { binary: {}, files: [] };
	for (const [n, output] of outputs.entries()) {
		const targets: Target[] = [{ url: output.url, mime: output.mime, property: properties[n], kind: 'output' }];
		if (output.cover) targets.push({ url: output.cover, mime: '', property: covers[n], kind: 'cover' });
		for (const t of targets) {
			const response = (await ctx.helpers.httpRequest({
				method: 'GET',
				url: t.url,
				encoding: 'stream',
				returnFullResponse: true,
				timeout: 10 * 60_000,
			})) as { body: Readable; headers: Record<string, string> };
			const mime = t.mime || String(response.headers['content-type'] ?? 'application/octet-stream').split(';')[0];
			const fromUrl = /\.([a-z0-9]{2,4})(?:\?|$)/i.exec(t.url)?.[1];
			const type = canonicalMediaType(mime);
			const extension = (type && MEDIA_TYPES[type].ext) ?? fromUrl ?? 'bin';
			const suffix = n === 0 ? '' : `_${n}`;
			const fileName = outputFileName(run, `${t.kind === 'cover' ? '-cover' : ''}${suffix}`, extension);
			result.binary[t.property] = await ctx.helpers.prepareBinaryData(response.body, fileName, mime);
			result.files.push({ property: t.property, fileName, mime, kind: t.kind });
		}
	}
	return result;
}
