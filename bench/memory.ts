// 3. Memory: with n8n's filesystem binary mode, download a 50 MB video output into binary data,
// then upload 50 MB from it; peak RSS growth of this process for each. The sandbox runs in its own
// process so its memory is not counted.
import { spawn } from 'node:child_process';
import path from 'node:path';

import { runNode, useBinaryMode } from '../test/helpers/engine';

const MB = 1024 * 1024;
const KEY = `sk_${'ab12'.repeat(10)}`;

function gc(): void {
	(global as unknown as { gc?: () => void }).gc?.();
}

async function peakDuring<T>(work: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
	gc();
	await new Promise((r) => setTimeout(r, 200));
	gc();
	const base = process.memoryUsage().rss;
	let peak = base;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
	const value = await work();
	clearInterval(timer);
	peak = Math.max(peak, process.memoryUsage().rss);
	return { value, growthMb: (peak - base) / MB };
}

/** Peak RSS growth of a fresh Node process that pipes `url` into a file (no n8n, no axios). */
async function rawNodeFirstTransfer(url: string): Promise<number> {
	const script = `
		const http = require('http'), fs = require('fs'), os = require('os'), path = require('path');
		global.gc(); setTimeout(() => { global.gc(); const base = process.memoryUsage().rss; let peak = base;
		const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
		http.get(${JSON.stringify(url)}, (res) => res.pipe(fs.createWriteStream(path.join(os.tmpdir(), 'mediagen-raw-' + process.pid))).on('finish', () => {
			clearInterval(t); fs.rmSync(path.join(os.tmpdir(), 'mediagen-raw-' + process.pid)); console.log(((Math.max(peak, process.memoryUsage().rss) - base) / 1048576).toFixed(2)); }));
		}, 200);`;
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--expose-gc', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
		child.on('exit', (code) =>
			code === 0 ? resolve(Number(out.trim())) : reject(new Error(`raw transfer failed (${code})`)),
		);
	});
}

async function main(): Promise<void> {
	const port = 4300 + Math.floor(Math.random() * 500);
	const child = spawn(
		process.execPath,
		[
			require.resolve('ts-node/dist/bin.js'),
			'--transpile-only',
			'--project',
			'tsconfig.test.json',
			'sandbox/cli.ts',
			String(port),
		],
		{
			cwd: path.resolve(__dirname, '..'),
			env: { ...process.env, SANDBOX_API_KEY: KEY },
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	await new Promise<void>((resolve) =>
		child.stdout!.on('data', (b: Buffer) => b.toString().includes('listening') && resolve()),
	);
	const root = `http://127.0.0.1:${port}`;
	await fetch(`${root}/_sandbox/config`, {
		method: 'POST',
		body: JSON.stringify({ outputBytes: 50 * MB, durations: { pendingMs: 0, video: 200 } }),
	});
	await useBinaryMode('filesystem');
	const credentials = { mediaGenApi: { baseUrl: `${root}/v1`, apiKey: KEY } };
	try {
		// Warm-up with a small file: the first execution loads n8n-core's and the node's code, which
		// is not memory used by the transfer.
		await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: 0 }) });
		await runNode({
			parameters: {
				resource: 'generation',
				operation: 'generate',
				kind: 'video',
				model: { __rl: true, mode: 'id', value: 'studio-video-v1' },
				prompt: 'warm up',
				waiting: { pollIntervalSeconds: 1 },
			},
			credentials,
		});
		await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: 50 * MB }) });
		const generate = (prompt: string) =>
			runNode({
				parameters: {
					resource: 'generation',
					operation: 'generate',
					kind: 'video',
					model: { __rl: true, mode: 'id', value: 'studio-video-v1' },
					prompt,
					waiting: { pollIntervalSeconds: 1 },
				},
				credentials,
			});
		const first = await peakDuring(() => generate('big file'));
		const item = first.value.items[0];
		if (!item?.binary?.data?.id) throw new Error(`download failed: ${first.value.error?.message}`);
		const size = Number(item.binary.data.bytes ?? 0) / MB;
		const again = await peakDuring(() => generate('big file again'));
		const upload = await peakDuring(() =>
			runNode({
				parameters: { resource: 'file', operation: 'upload', binaryPropertyName: 'data' },
				items: [{ json: {}, binary: item.binary }],
				credentials,
			}),
		);
		if (upload.value.error) throw new Error(`upload failed: ${upload.value.error.message}`);
		// The same download at three times the size: if memory does not grow with the file, it is streamed.
		await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: 150 * MB }) });
		const triple = await peakDuring(() => generate('bigger file'));
		// Baseline: a bare Node process piping the same 50 MB file from http.get into a file, first transfer.
		const url = String((first.value.items[0].json.outputs as Array<{ url: string }>)[0].url);
		const raw = await rawNodeFirstTransfer(url);
		console.log(
			`memory: ${size.toFixed(1)} MB video, filesystem binary mode | download peak RSS growth: first in process ${first.growthMb.toFixed(1)} MB (bare Node http→file, first: ${raw.toFixed(1)} MB), again ${again.growthMb.toFixed(1)} MB, 150 MB file ${triple.growthMb.toFixed(1)} MB | upload ${upload.growthMb.toFixed(1)} MB (target < 20 MB each)`,
		);
	} finally {
		child.kill('SIGTERM');
	}
}

void main().then(() => process.exit(0));
