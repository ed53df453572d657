/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench -- pause-scale`: issues #45 and #54. Pause mode and Poll, batches of 40, 300 and 1,000 images, in
// real n8n with the package installed from its tarball, on each supported version (`MEDIAGEN_N8N_VERSIONS`). One
// Webhook → Split Out → Generate workflow per mode and size, each on its own account (2 slots, every image run 2 s,
// no time scale: the service retries deliveries on its real schedule; rate limits lifted). Per batch it prints
// makespan / ideal, n8n's CPU per run (n8n and its children, idle use subtracted), the receiver's time per delivery
// by quarter of the batch, and deliveries answered other than 2xx. Options: `--sizes 40,300,1000`,
// `--modes pause,poll`, `--run-ms 2000`, `--slots 2`, `--cpu-prof <folder>`, `--layout queue` (queue mode:
// pauseScaleQueue.ts). bench/RESULTS.md copies its output.
import { startSandbox } from '../../sandbox/server';
import {
	importCredentials,
	importWorkflows,
	N8N_VERSIONS,
	ownerSession,
	prepareN8n,
	setWorkflowActive,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import {
	cpuSeconds,
	ensureSqliteShell,
	executionsOf,
	followExecution,
	lastOutput,
	storedExecution,
	threadCpuSeconds,
	topThreads,
} from './measure';
import {
	batchesOn,
	credentialsOf,
	LAYOUT,
	envNote,
	N8N_ENV,
	PROFILE_DIR,
	ratio,
	SANDBOX,
	serviceFigures,
	startBatch,
	workflowFor,
	type Batch,
} from './scaleBatch';
import type { Sandbox } from '../../sandbox/server';

const SETTLE_MS = 20_000;
const IDLE_SAMPLE_MS = 10_000;

export interface BatchFigures extends ReturnType<typeof serviceFigures> {
	batch: Batch;
	status: string;
	makespanMs: number;
	cpuMsPerRun: number;
	/** n8n's CPU per second while idle, read before the batch and taken off its CPU: ms per second. */
	idleMsPerSecond: number;
	succeeded: number;
	/** n8n's threads (and its children's, such as the task runner) that spent the most, in ms per run. */
	topThreads: Array<[string, number]>;
}

/** CPU so far of each thread of n8n and its children: n8n's own named `n8n:<thread>`, a child's `<pid>:<thread>`. */
function n8nThreads(pid: number): Map<string, number> {
	const named = new Map<string, number>();
	for (const [key, seconds] of threadCpuSeconds(pid)) {
		const [owner, thread] = key.split('/');
		const name = `${owner === String(pid) ? 'n8n' : owner}:${thread}`;
		named.set(name, (named.get(name) ?? 0) + seconds);
	}
	return named;
}

/**
 * What idle n8n spends per second (its own timers), taken off its CPU time for the batch. Read over 10-second
 * windows until one is quiet (under 20 ms a second; at most 2 minutes): right after its start n8n 1.x still worked
 * for a while, and a window read then took about 100 ms a run off the first batch (142 against 242 ms by its threads).
 */
async function idleCpuPerSecond(pid: number): Promise<number> {
	let perSecond = Infinity;
	for (let window = 0; window < 12 && perSecond > 0.02; window++) {
		const from = cpuSeconds(pid);
		await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
		perSecond = (cpuSeconds(pid) - from) / (IDLE_SAMPLE_MS / 1000);
	}
	return perSecond;
}

async function runBatch(b: Batch, n8n: N8nInstance, cookie: string, sb: Sandbox): Promise<BatchFigures> {
	const pid = n8n.server!.pid!;
	const idlePerSecond = await idleCpuPerSecond(pid);
	const threadsBefore = n8nThreads(pid);
	const cpuBefore = cpuSeconds(pid);
	// Timed here, from the call that starts the batch to the end n8n records: n8n 1.x moves an execution's
	// startedAt when it resumes, so its own start and stop times give no makespan for a paused batch.
	const startedAt = Date.now();
	await startBatch(b, `http://127.0.0.1:${n8n.port}`);
	const followed = await followExecution(n8n, b.id, 200, 90 * 60_000);
	const makespanMs = Date.now() - startedAt;
	const cpu = cpuSeconds(pid) - cpuBefore;
	const threadsAfter = n8nThreads(pid);
	const done = (await executionsOf(n8n, cookie, b.id)).find((e) => e.id === followed.id);
	if (!done?.stoppedAt) throw new Error(`bench:pause-scale: no end for execution ${followed.id}`);
	const out = lastOutput(await storedExecution(n8n, cookie, done.id), 'Generate', 0);
	return {
		...serviceFigures(b, sb),
		batch: b,
		status: done.status,
		makespanMs,
		cpuMsPerRun: ((cpu - idlePerSecond * (makespanMs / 1000)) * 1000) / b.size,
		idleMsPerSecond: idlePerSecond * 1000,
		succeeded: out.filter((i) => i.json.status === 'SUCCEEDED' && i.binary?.data).length,
		topThreads: topThreads(threadsBefore, threadsAfter, b.size),
	};
}

export function lineOf(version: string, f: BatchFigures): string {
	const quarters = f.deliveryMsByQuarter.map((ms) => ms.toFixed(0)).join(' / ');
	return (
		`pause-scale: n8n ${version}${envNote()} | ${f.batch.mode} ${f.batch.size} images | ${f.status}, ` +
		`${f.succeeded} succeeded, ${f.charges} charges | ${ratio(f.makespanMs, f.idealMs)} | ` +
		`n8n CPU per run ${f.cpuMsPerRun.toFixed(0)} ms (idle ${f.idleMsPerSecond.toFixed(0)} ms/s taken off)` +
		(f.batch.mode === 'pause'
			? ` | time per delivery by quarter ${quarters} ms | deliveries ${f.deliveries}, not 2xx ${f.non2xx}`
			: '') +
		` | top threads (ms per run): ${f.topThreads.map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ')}`
	);
}

async function measureVersion(version: string): Promise<string[]> {
	const sb = await startSandbox(SANDBOX);
	const batches = batchesOn(sb);
	const n8n = await prepareN8n({ version });
	Object.assign(n8n.env, N8N_ENV);
	if (PROFILE_DIR) n8n.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}`;
	await importCredentials(n8n, credentialsOf(batches, sb));
	await importWorkflows(
		n8n,
		batches.map((b) => workflowFor(b, sb.rootUrl, n8n.outputDir)),
	);
	await startServer(n8n);
	const lines: string[] = [];
	try {
		const cookie = await ownerSession(n8n);
		for (const b of batches) await setWorkflowActive(n8n, cookie, b.id, true);
		// n8n keeps busy for a while after it has started and the workflows were activated.
		await new Promise((r) => setTimeout(r, SETTLE_MS));
		for (const b of batches) {
			const line = lineOf(n8n.version, await runBatch(b, n8n, cookie, sb));
			console.log(line);
			lines.push(line);
		}
	} finally {
		await stopServer(n8n);
		await sb.close();
	}
	return lines;
}

async function main(): Promise<void> {
	const measure =
		LAYOUT === 'queue' ? (await import('./pauseScaleQueue')).measureQueue : (ensureSqliteShell(), measureVersion);
	const lines: string[] = [];
	for (const version of N8N_VERSIONS) lines.push(...(await measure(version)));
	console.log(`\n${lines.join('\n')}`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
