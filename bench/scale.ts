// 8. Scale: both waiting modes at 10, 100 and 1,000 image items on 3 slots, each case in its own process with
// the sandbox in another, so the CPU time and RSS measured are the n8n side's alone (WorkflowExecute, the
// waiting host that stands for n8n's WaitingWebhooks, and our node). Time is scaled: runs take 1 s, and the
// sandbox's rate windows shrink with its clock (timeScale 0.01: the 20 submissions a minute become 20 in
// 0.6 s), so 1,000 items are not held up by the spec's per-minute limits.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

import { runNode } from '../test/helpers/engine';
import { startWaitingHost } from '../test/helpers/waitingHost';

const SIZES = [10, 100, 1000];
const MODES = ['poll', 'pause'] as const;
const SLOTS = 3;
const RUN_MS = 1_000;
const ROOT = path.resolve(__dirname, '..');
const TS = ['-r', 'ts-node/register/transpile-only', '-r', './bench/prefer-ts.js'];
const ENV = { ...process.env, TS_NODE_PROJECT: 'tsconfig.test.json' };

interface CaseResult {
	mode: string;
	items: number;
	makespanMs: number;
	requests: number;
	posts: number;
	cpuMs: number;
	peakRssMb: number;
	/** Pause only: CPU of execute() up to the pause, of the resume calls that did not resume, of the last one. */
	executeCpuMs?: number;
	deliveryCpuMs?: number[];
	finalCpuMs?: number;
}

/** The sandbox in a child process: prints its base URL, then the account's key and secret, as one JSON line. */
async function startSandboxProcess() {
	const child = spawn(process.execPath, [...TS, 'bench/scaleSandbox.ts'], { cwd: ROOT, env: ENV });
	const first = await new Promise<string>((resolve, reject) => {
		readline.createInterface({ input: child.stdout }).once('line', resolve);
		child.once('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
	});
	const info = JSON.parse(first) as { baseUrl: string; rootUrl: string; apiKey: string; secret: string };
	return { ...info, stop: () => child.kill() };
}

async function runCase(mode: string, count: number): Promise<CaseResult> {
	const sandbox = await startSandboxProcess();
	const credentials = {
		mediaGenApi: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey },
		mediaGenWebhookApi: { secret: sandbox.secret },
	};
	const host = await startWaitingHost();
	let peak = process.memoryUsage().rss;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
	const cpu = process.cpuUsage();
	const started = performance.now();
	const result = await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: '={{ $json.p }}',
			waitMode: mode,
			waiting: { pollIntervalSeconds: 1, timeoutMinutes: 120 },
		},
		items: Array.from({ length: count }, (_, i) => ({ json: { p: `scale ${mode} ${i}` } })),
		credentials,
		webhookWaitingBaseUrl: host.baseUrl,
	});
	const executeCpu = process.cpuUsage(cpu);
	let items = result.items;
	if (mode === 'pause') {
		if (result.run?.status !== 'waiting') throw new Error(`did not pause: ${result.error?.message}`);
		host.hold(result, credentials);
		const resumed = await host.resumed(result.executionId, 3_600_000);
		if (resumed.error) throw new Error(resumed.error.message);
		items = resumed.items;
	}
	const makespanMs = performance.now() - started;
	const used = process.cpuUsage(cpu);
	clearInterval(sampler);
	if (items.filter((i) => i.binary?.data).length !== count) throw new Error(`${mode} ${count}: files missing`);
	const log = (await (await fetch(`${sandbox.rootUrl}/_sandbox/log`)).json()) as {
		log: Array<{ method: string; path: string }>;
	};
	const api = log.log.filter((e) => e.path.startsWith('/v1/'));
	sandbox.stop();
	await host.close();
	return {
		mode,
		items: count,
		makespanMs,
		requests: api.length,
		posts: api.filter((e) => e.method === 'POST' && e.path === '/v1/generations').length,
		cpuMs: (used.user + used.system) / 1000,
		peakRssMb: peak / 1024 ** 2,
		...(mode === 'pause'
			? {
					executeCpuMs: (executeCpu.user + executeCpu.system) / 1000,
					deliveryCpuMs: host.cpuMs.slice(0, -1),
					finalCpuMs: host.cpuMs[host.cpuMs.length - 1],
				}
			: {}),
	};
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function line(r: CaseResult): string {
	const ideal = Math.ceil(r.items / SLOTS) * RUN_MS;
	const parts = [
		`scale: ${r.mode} ${r.items} images on ${SLOTS} slots`,
		`makespan/ideal ${fixed(r.makespanMs / ideal, 3)}`,
		`API requests/run ${fixed(r.requests / r.items)} (POST ${fixed(r.posts / r.items)})`,
		`n8n-side CPU/run ${fixed(r.cpuMs / r.items, 1)} ms`,
		`peak RSS ${fixed(r.peakRssMb, 0)} MB`,
	];
	if (r.deliveryCpuMs) {
		parts.push(
			`pause CPU: execute ${fixed(r.executeCpuMs!, 0)} ms, resume calls median ` +
				`${fixed(median(r.deliveryCpuMs), 1)} ms × ${r.deliveryCpuMs.length}, last call (downloads, output) ` +
				`${fixed(r.finalCpuMs!, 0)} ms`,
		);
	}
	return parts.join(' | ');
}

async function main(): Promise<void> {
	const [, , flag, mode, size] = process.argv;
	if (flag === '--case') {
		console.log(JSON.stringify(await runCase(mode, Number(size))));
		return;
	}
	const results: CaseResult[] = [];
	for (const count of SIZES) {
		for (const m of MODES) {
			const out = execFileSync(process.execPath, [...TS, 'bench/scale.ts', '--case', m, String(count)], {
				cwd: ROOT,
				env: ENV,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'inherit'],
				maxBuffer: 64 * 1024 * 1024,
			});
			const result = JSON.parse(out.trim().split('\n').pop()!) as CaseResult;
			results.push(result);
			console.log(line(result));
		}
	}
	for (const m of MODES) {
		const at = (n: number) => results.find((r) => r.mode === m && r.items === n)!;
		const change = (f: (r: CaseResult) => number) => `${fixed((f(at(1000)) / f(at(100)) - 1) * 100, 0)}%`;
		const perCall = m === 'pause' ? `, resume call (median) ${change((r) => median(r.deliveryCpuMs!))}` : '';
		console.log(
			`scale: ${m} 100 → 1,000 per run | requests ${change((r) => r.requests / r.items)}, ` +
				`CPU ${change((r) => r.cpuMs / r.items)}${perCall}, makespan/ideal ${change((r) => r.makespanMs / r.items)}`,
		);
	}
}

void main().then(
	() => process.exit(0),
	(error: Error) => {
		console.error(error);
		process.exit(1);
	},
);
