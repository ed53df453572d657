/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 3. Memory: with n8n's filesystem binary mode, download a 50 MB video output into binary data,
// then upload 50 MB from it; peak RSS growth of this process for each. The sandbox runs in its own
// process so its memory is not counted. The first download in a process is then split by path, each in
// fresh processes (bench/memoryProbe.ts): ours, n8n's own download path without our node, bare Node.
import { spawn } from 'node:child_process';
import path from 'node:path';

import { runNode, useBinaryMode } from '../test/helpers/engine';
import { generateVideo, MB, peakDuring } from './memoryTools';

const KEY = `sk_${'ab12'.repeat(10)}`;

const PROBE_REPEATS = 3;
const PATHS = ['ours', 'n8n', 'node', 'discard'] as const;
type Path = (typeof PATHS)[number];

/** Peak RSS growth of the first 50 MB download in a fresh process, by `mode` (see memoryProbe.ts). */
async function firstInFreshProcess(mode: Path, root: string): Promise<number> {
	const args = ['--expose-gc', '-r', 'ts-node/register/transpile-only', '-r', './bench/prefer-ts.js'];
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [...args, 'bench/memoryProbe.ts', mode, root, KEY], {
			cwd: path.resolve(__dirname, '..'),
			env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.test.json' },
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
		child.on('exit', (code) => {
			const growth = /growth (\S+)/.exec(out)?.[1];
			if (code === 0 && growth) resolve(Number(growth));
			else reject(new Error(`memory probe ${mode} failed (${code}): ${out.slice(-500)}`));
		});
	});
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
		// Limits far above what this bench submits: each probe process starts two runs of its own.
		body: JSON.stringify({
			outputBytes: 50 * MB,
			durations: { pendingMs: 0, video: 200 },
			rateLimits: { submitPerIdentity: 1000, submitPerAddress: 1000, readPerIdentity: 10_000, readPerAddress: 10_000 },
		}),
	});
	await useBinaryMode('filesystem');
	const credentials = { mediaGenApi: { baseUrl: `${root}/v1`, apiKey: KEY } };
	try {
		// Warm-up with a small file: the first execution loads n8n-core's and the node's code, which
		// is not memory used by the transfer.
		await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: 0 }) });
		await generateVideo(root, KEY, 'warm up');
		await fetch(`${root}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: 50 * MB }) });
		const generate = (prompt: string) => generateVideo(root, KEY, prompt);
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
		// The first download in a fresh process, by path; interleaved so drift on the machine hits each alike.
		const firsts: Record<Path, number[]> = { ours: [], n8n: [], node: [], discard: [] };
		for (let n = 0; n < PROBE_REPEATS; n++) {
			for (const mode of PATHS) firsts[mode].push(await firstInFreshProcess(mode, root));
		}
		const [ours, n8n, node, discard] = PATHS.map((m) => median(firsts[m]));
		const all = (m: Path) => firsts[m].map((v) => v.toFixed(1)).join('/');
		console.log(
			`memory: ${size.toFixed(1)} MB video, filesystem binary mode | first download in a fresh process, ` +
				`peak RSS growth, median of ${PROBE_REPEATS}: ours ${ours.toFixed(1)} MB (${all('ours')}), ` +
				`n8n's own path without our node ${n8n.toFixed(1)} MB (${all('n8n')}), bare Node http.get → file ` +
				`${node.toFixed(1)} MB (${all('node')}), bare Node reading the body and throwing it away ` +
				`${discard.toFixed(1)} MB (${all('discard')}); ours beyond n8n's own ${(ours - n8n).toFixed(1)} MB ` +
				`(target < 20 MB) | in this process: first ${first.growthMb.toFixed(1)} MB, again ` +
				`${again.growthMb.toFixed(1)} MB, 150 MB file ${triple.growthMb.toFixed(1)} MB | upload ` +
				`${upload.growthMb.toFixed(1)} MB (target < 20 MB)`,
		);
	} finally {
		child.kill('SIGTERM');
	}
}

void main().then(() => process.exit(0));
