/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench -- memory-modes`: what a generated video costs n8n's own process in each binary data mode users run,
// in real n8n (scripts/n8n-versions.env's main version, one process, SQLite), from one run. For `filesystem` (the
// default of a single process) and `database` (the 2.x default in queue mode) in turn: n8n starts with the package,
// a Webhook → Generate (video) workflow is published, and each call makes one video of the given size, downloaded
// into binary data. Measured on n8n's process: peak RSS growth during the call (VmHWM after resetting it through
// /proc/<pid>/clear_refs, minus VmRSS before), and how much the SQLite file grew. A last start lowers
// N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE below the file to show what the step then says.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import {
	activateWorkflow,
	importCredentials,
	importWorkflow,
	prepareN8n,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';

const MB = 1024 * 1024;
const ROOT = path.resolve(__dirname, '../..');
const WORKFLOW_ID = 'mgMemoryModes001';
const HOOK = 'memory-modes';
const REPEATS = 3;
const START = '<!-- bench:memory-modes -->';
const END = '<!-- /bench:memory-modes -->';

function workflow(): Record<string, unknown> {
	return {
		id: WORKFLOW_ID,
		name: 'Memory by binary data mode',
		nodes: [
			{
				id: 'hook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '5d0f3b8e-4c1a-4e7b-9f2d-6a8c0e1b7d43',
				parameters: { httpMethod: 'POST', path: HOOK, responseMode: 'lastNode', options: {} },
			},
			{
				id: 'generate',
				name: 'Generate Video',
				type: 'n8n-nodes-mediagen.mediaGen',
				typeVersion: 1,
				position: [200, 0],
				// The step's own message comes back in the webhook's answer when a file is refused.
				onError: 'continueRegularOutput',
				parameters: {
					resource: 'generation',
					operation: 'generate',
					kind: 'video',
					model: { __rl: true, mode: 'id', value: 'studio-video-v1' },
					prompt: '={{ $json.body.prompt }}',
					waiting: { pollIntervalSeconds: 1 },
				},
				credentials: { mediaGenApi: { id: 'memKey', name: 'Media Generation sandbox' } },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Generate Video', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? NaN);

/** One call: the video's size, n8n's peak RSS growth during it, the SQLite growth, and what the step answered. */
async function call(sb: Sandbox, n8n: N8nInstance, bytes: number, prompt: string) {
	await fetch(`${sb.rootUrl}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ outputBytes: bytes }) });
	const pid = n8n.server!.pid!;
	const db = path.join(n8n.userFolder, '.n8n/database.sqlite');
	// SQLite writes to its write-ahead log first: count both files.
	const dbSize = () => [db, `${db}-wal`].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
	const dbBefore = dbSize();
	writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
	const before = kb(status(pid), 'VmRSS');
	const res = await fetch(`http://127.0.0.1:${n8n.port}/webhook/${HOOK}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt }),
	});
	const answer = await res.text();
	const peak = kb(status(pid), 'VmHWM');
	return {
		growthMb: (peak - before) / 1024,
		dbGrowthMb: (dbSize() - dbBefore) / MB,
		ok: res.ok && /"status":"SUCCEEDED"/.test(answer) && !/"error":"/.test(answer),
		answer: answer.slice(0, 600),
	};
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measureMode(sb: Sandbox, mode: string, extraEnv: Record<string, string> = {}) {
	// A fresh account per n8n: each fresh n8n numbers executions from 1 with the same instance id, so the default
	// request keys repeat, and the service would return the earlier instance's run for them.
	const key = sb.engine.createAccount({ credits: 100_000, concurrency: 3 }).keys[0];
	const n8n = await prepareN8n();
	n8n.env = { ...n8n.env, N8N_DEFAULT_BINARY_DATA_MODE: mode, ...extraEnv };
	await importCredentials(n8n, [
		{ id: 'memKey', name: 'Media Generation sandbox', type: 'mediaGenApi', data: { baseUrl: sb.baseUrl, apiKey: key } },
	]);
	await importWorkflow(n8n, workflow());
	await activateWorkflow(n8n, WORKFLOW_ID);
	await startServer(n8n);
	try {
		for (let deadline = Date.now() + 120_000; Date.now() < deadline; ) {
			const probe = await fetch(`http://127.0.0.1:${n8n.port}/webhook/${HOOK}`, { method: 'HEAD' });
			if (probe.status !== 404) break;
			await new Promise((r) => setTimeout(r, 1000));
		}
		// Warm-up: the first execution loads code; a tiny file, not counted.
		await call(sb, n8n, 1024, `${mode} warm up`);
		await call(sb, n8n, 1024, `${mode} warm up again`);
		return { n8n, call: (bytes: number, tag: string) => call(sb, n8n, bytes, `${mode} ${tag}`) };
	} catch (error) {
		await stopServer(n8n);
		throw error;
	}
}

async function main(): Promise<void> {
	const sb = await startSandbox({
		durations: { pendingMs: 0, image: 200, video: 300, music: 200 },
	});
	// Limits far above what this bench sends (as bench/memory.ts sets them).
	await fetch(`${sb.rootUrl}/_sandbox/config`, {
		method: 'POST',
		body: JSON.stringify({
			rateLimits: { submitPerIdentity: 1000, submitPerAddress: 1000, readPerIdentity: 10_000, readPerAddress: 10_000 },
		}),
	});
	const lines: string[] = [];
	let version = '';
	try {
		const figures: Record<string, string> = {};
		for (const mode of ['filesystem', 'database']) {
			const { n8n, call: run } = await measureMode(sb, mode);
			version = n8n.version;
			try {
				const fifty = [];
				for (let i = 0; i < REPEATS; i++) fifty.push(await run(50 * MB, `50 MB ${i}`));
				const big = await run(200 * MB, '200 MB');
				const bad = [...fifty, big].filter((r) => !r.ok);
				if (bad.length) throw new Error(`${mode}: a call failed: ${bad[0].answer}`);
				const all = fifty.map((r) => r.growthMb.toFixed(0)).join('/');
				figures[mode] =
					`${mode}: 50 MB video ${median(fifty.map((r) => r.growthMb)).toFixed(0)} MB (${all}), ` +
					`SQLite +${median(fifty.map((r) => r.dbGrowthMb)).toFixed(0)} MB; ` +
					`200 MB video ${big.growthMb.toFixed(0)} MB, SQLite +${big.dbGrowthMb.toFixed(0)} MB`;
			} finally {
				await stopServer(n8n);
			}
		}
		lines.push(
			`memory-modes: peak RSS growth of n8n's process during one Generate (video, downloaded into binary data), ` +
				`n8n ${version}, one process, SQLite, median of ${REPEATS} for 50 MB | ${figures.filesystem} | ${figures.database}`,
		);
		// Over the database mode's limit: what the step says (the limit lowered so a 200 MB file crosses it).
		const { n8n, call: run } = await measureMode(sb, 'database', {
			N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '100',
		});
		try {
			const over = await run(200 * MB, 'over the limit');
			const runs = [...sb.engine.runs.values()].filter((r) => r.prompt === 'database over the limit');
			const charged = sb.engine.ledger.filter((l) => runs.some((r) => r.id === l.runId) && l.delta < 0).length;
			lines.push(
				`memory-modes: database mode, N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE=100, a 200 MB video | ` +
					`peak RSS growth ${over.growthMb.toFixed(0)} MB; ${runs.length} run, ${charged} charge; the step's answer: ` +
					over.answer.replace(/\s+/g, ' '),
			);
		} finally {
			await stopServer(n8n);
		}
	} finally {
		await sb.close();
	}
	for (const line of lines) console.log(line);
	if (process.argv.includes('--write')) writeResults(lines);
}

function writeResults(lines: string[]): void {
	const file = path.join(ROOT, 'bench/RESULTS.md');
	const text = readFileSync(file, 'utf8');
	const block =
		`${START}\n\n## Real n8n: memory by binary data mode (\`npm run bench -- memory-modes\`)\n\n` +
		`Run on ${new Date().toISOString().slice(0, 10)}. One run; both modes side by side.\n\n` +
		`\`\`\`\n${lines.join('\n')}\n\`\`\`\n\n` +
		'- **filesystem** streams the download to disk: memory does not grow with the file.\n' +
		'- **database** (n8n/dist/binary-data/database.manager.js) reads each whole file into memory before it\n' +
		'  stores it in the database, so memory grows with the file, and the database grows by each file until n8n\n' +
		'  prunes the execution. Files over `N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE` (512 MiB by default) are refused.\n' +
		"- RSS is n8n's own process (`/proc/<pid>/status`: VmHWM after `clear_refs`, minus VmRSS before the call).\n" +
		`\n${END}`;
	const from = text.indexOf(START);
	const to = text.indexOf(END);
	writeFileSync(
		file,
		from >= 0 && to > from
			? text.slice(0, from) + block + text.slice(to + END.length)
			: `${text.trimEnd()}\n\n${block}\n`,
	);
}

void main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
