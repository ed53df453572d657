/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// One first download of a 50 MB output in a fresh process, by one path, for bench/memory.ts (which starts the
// sandbox and runs this once per path and repeat): prints the peak RSS growth in MB. Paths:
// - ours: the node's Generate with download (the node's code over n8n's helpers), through WorkflowExecute;
// - n8n: n8n's own download path without our node: the request client @n8n/backend-network's OutboundHttp gives
//   (what helpers.httpRequest calls), as a stream into n8n-core's prepareBinaryData, filesystem binary mode;
// - node: bare Node, http.get piped into a file;
// - discard: bare Node, http.get with the body read and thrown away (no file at all): what reading costs.
// Each path first fetches a small file the same way, so loading code is not counted as the transfer's memory.
import { OutboundHttp } from '@n8n/backend-network';
import { Container } from '@n8n/di';
import { createWriteStream, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { prepareBinaryData } from 'n8n-core';

import { useBinaryMode } from '../test/helpers/engine';
import { generateVideo, MB, peakDuring } from './memoryTools';

const [mode, root, key] = process.argv.slice(2);

const config = async (body: object) =>
	await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify(body) });

/** A finished video run's file address, made with the sandbox's current output size. */
async function finishedVideoUrl(prompt: string): Promise<string> {
	const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
	const body = { kind: 'video', model: 'studio-video-v1', prompt, options: { resolution: '480p' } };
	const res = await fetch(`${root}/v1/generations`, { method: 'POST', headers, body: JSON.stringify(body) });
	const { generation } = (await res.json()) as { generation: { id: string } };
	for (;;) {
		await new Promise((r) => setTimeout(r, 300));
		const read = await fetch(`${root}/v1/generations/${generation.id}`, { headers });
		const run = ((await read.json()) as { generation: { status: string; outputs: Array<{ url: string }> } }).generation;
		if (run.status === 'SUCCEEDED') return run.outputs[0].url;
	}
}

async function viaN8n(url: string): Promise<void> {
	const request = { method: 'GET' as const, url, encoding: 'stream' as const, returnFullResponse: true };
	const response = (await Container.get(OutboundHttp).requests().request(request)) as { body: Readable };
	await prepareBinaryData(response.body, 'bench-execution', 'bench-workflow', 'video.mp4', 'video/mp4');
}

async function viaNode(url: string): Promise<void> {
	const file = path.join(os.tmpdir(), `mediagen-raw-${process.pid}`);
	const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
	await pipeline(res, createWriteStream(file));
	rmSync(file);
}

async function discard(url: string): Promise<void> {
	const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
	res.resume();
	await new Promise((resolve) => res.on('end', resolve));
}

async function viaOurs(prompt: string): Promise<void> {
	const result = await generateVideo(root, key, prompt);
	if (!result.items[0]?.binary?.data) throw new Error(`download failed: ${result.error?.message}`);
}

async function main(): Promise<void> {
	await useBinaryMode('filesystem');
	const transfer = async (size: number, tag: string) => {
		await config({ outputBytes: size });
		if (mode === 'ours') return async () => await viaOurs(`${tag} ${process.pid}`);
		const url = await finishedVideoUrl(`${tag} ${process.pid}`);
		if (mode === 'discard') return async () => await discard(url);
		return async () => await (mode === 'n8n' ? viaN8n(url) : viaNode(url));
	};
	await (
		await transfer(0, 'warm up')
	)();
	const big = await transfer(50 * MB, 'big file');
	const { growthMb } = await peakDuring(big);
	console.log(`growth ${growthMb.toFixed(2)}`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
