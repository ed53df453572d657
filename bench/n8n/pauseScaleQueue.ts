/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench -- pause-scale --layout queue` (issue #54): the batches of pauseScale.ts in n8n's queue mode, as
// self-hosters run it: main, 2 workers and 1 webhook process, Postgres and Redis (scripts/queueStack.ts, as the
// queue suite starts them). Batches start at the webhook process. Per batch it prints makespan / ideal; n8n's CPU
// per run for each process kind and all together, and Postgres's (idle use subtracted); time per delivery by quarter;
// deliveries answered other than 2xx; the waiting execution's size in Postgres (the largest seen); and the threads
// that spent the most (from /proc/<pid>/task), to show where a limit comes from.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { bootQueueStack, type QueueStack, type Role } from '../../scripts/queueStack';
import { ownerSession } from '../../scripts/realN8n';
import {
	cpuSeconds,
	cpuSecondsWithEnded,
	followInShell,
	lastOutput,
	storedExecution,
	threadCpuSeconds,
	topThreads,
} from './measure';
import {
	batchesOn,
	credentialsOf,
	MODES,
	envNote,
	N8N_ENV,
	PROFILE_DIR,
	ratio,
	SANDBOX,
	serviceFigures,
	SIZES,
	startBatch,
	workflowFor,
	batchId,
	type Batch,
} from './scaleBatch';

const SETTLE_MS = 20_000;
const IDLE_SAMPLE_MS = 10_000;
type Kind = Role | 'postgres';
const KINDS: Kind[] = ['main', 'worker', 'webhook', 'postgres'];

/** The pids whose CPU each kind adds up: every n8n process of the kind, and the Postgres server. */
function pidsByKind(stack: QueueStack): Array<[Kind, number]> {
	const n8n = [...stack.processes.values()].map((p): [Kind, number] => [p.role, p.child!.pid!]);
	const postmaster = Number(
		readFileSync(path.join(stack.dir, 'services/pg/data/postmaster.pid'), 'utf8').split('\n')[0],
	);
	return [...n8n, ['postgres', postmaster]];
}

function cpuByKind(stack: QueueStack): Map<Kind, number> {
	const out = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
	for (const [kind, pid] of pidsByKind(stack))
		out.set(kind, out.get(kind)! + (kind === 'postgres' ? cpuSecondsWithEnded(pid) : cpuSeconds(pid)));
	return out;
}

function threadsByKind(stack: QueueStack): Map<string, number> {
	const out = new Map<string, number>();
	for (const [kind, pid] of pidsByKind(stack)) {
		if (kind === 'postgres') continue;
		const name = [...stack.processes.values()].find((p) => p.child?.pid === pid)!.name;
		for (const [thread, seconds] of threadCpuSeconds(pid)) {
			const key = `${name}:${thread.split('/')[1]}`;
			out.set(key, (out.get(key) ?? 0) + seconds);
		}
	}
	return out;
}

/**
 * Follows a workflow's newest execution in Postgres (one psql session, a query every `everyMs`) until it ends,
 * keeping the largest size its data reached in the database (pg_column_size: as stored, compressed).
 */
async function followInPostgres(stack: QueueStack, workflowId: string, everyMs = 500, limitMs = 90 * 60_000) {
	const query =
		`SELECT 'S|' || e.id || '|' || e.status || '|' || coalesce(pg_column_size(d.data), 0) ` +
		`FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id ` +
		`WHERE e."workflowId" = '${workflowId}' ORDER BY e.id DESC LIMIT 1;\n`;
	let largestBytes = 0;
	const args = ['-At', '-h', '127.0.0.1', '-p', String(stack.pgPort), '-U', 'postgres', '-d', 'n8n'];
	const onRow = ([, , bytes]: string[]) => (largestBytes = Math.max(largestBytes, Number(bytes)));
	const ended = await followInShell('psql', args, query, workflowId, onRow, everyMs, limitMs);
	return { ...ended, largestBytes };
}

export interface QueueFigures extends ReturnType<typeof serviceFigures> {
	batch: Batch;
	status: string;
	makespanMs: number;
	/** CPU ms per run, idle use subtracted, per kind of process. */
	cpuMsPerRun: Map<Kind, number>;
	succeeded: number;
	largestBytes: number;
	/** The threads that spent the most during the batch, CPU ms per run. */
	topThreads: Array<[string, number]>;
}

async function runBatch(stack: QueueStack, cookie: string, b: Batch): Promise<QueueFigures> {
	const idleFrom = cpuByKind(stack);
	await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
	const idleTo = cpuByKind(stack);
	const threadsBefore = threadsByKind(stack);
	const cpuBefore = cpuByKind(stack);
	const startedAt = Date.now();
	await startBatch(b, stack.webhookBase);
	const followed = await followInPostgres(stack, b.id);
	const makespanMs = Date.now() - startedAt;
	const cpuAfter = cpuByKind(stack);
	const threadsAfter = threadsByKind(stack);
	const perRun = (seconds: number) => (seconds * 1000) / b.size;
	const cpuMsPerRun = new Map<Kind, number>(
		KINDS.map((k) => {
			const idle = ((idleTo.get(k)! - idleFrom.get(k)!) / IDLE_SAMPLE_MS) * makespanMs;
			return [k, perRun(cpuAfter.get(k)! - cpuBefore.get(k)! - idle / 1000)];
		}),
	);
	const out = lastOutput(await storedExecution(stack.main, cookie, followed.id), 'Generate', 0);
	return {
		...serviceFigures(b, stack.sandbox),
		batch: b,
		status: followed.status,
		makespanMs,
		cpuMsPerRun,
		succeeded: out.filter((i) => i.json.status === 'SUCCEEDED' && i.binary?.data).length,
		largestBytes: followed.largestBytes,
		topThreads: topThreads(threadsBefore, threadsAfter, b.size),
	};
}

export function queueLineOf(version: string, f: QueueFigures): string {
	const ms = (k: Kind) => f.cpuMsPerRun.get(k)!.toFixed(0);
	const n8nTotal = (['main', 'worker', 'webhook'] as Kind[]).reduce((sum, k) => sum + f.cpuMsPerRun.get(k)!, 0);
	const quarters = f.deliveryMsByQuarter.map((x) => x.toFixed(0)).join(' / ');
	return (
		`pause-scale queue: n8n ${version}${envNote()} | ${f.batch.mode} ${f.batch.size} images | ${f.status}, ` +
		`${f.succeeded} succeeded, ${f.charges} charges | ${ratio(f.makespanMs, f.idealMs)} | ` +
		`n8n CPU per run ${n8nTotal.toFixed(0)} ms (main ${ms('main')}, workers ${ms('worker')}, ` +
		`webhook ${ms('webhook')}) | Postgres CPU per run ${ms('postgres')} ms | ` +
		(f.batch.mode === 'pause'
			? `time per delivery by quarter ${quarters} ms | deliveries ${f.deliveries}, not 2xx ${f.non2xx}` +
				(f.non2xx ? ` (${f.non2xxStatuses.join(', ')})` : '') +
				' | '
			: '') +
		`execution in Postgres up to ${(f.largestBytes / 1024).toFixed(0)} KiB | top threads (ms per run): ` +
		f.topThreads.map(([name, x]) => `${name} ${x.toFixed(0)}`).join(', ')
	);
}

export async function measureQueue(version: string): Promise<string[]> {
	let batches: Batch[] = [];
	const stack = await bootQueueStack({
		version,
		sandbox: SANDBOX,
		credentials: (sb) => credentialsOf((batches = batchesOn(sb)), sb),
		workflows: (root) => batches.map((b) => workflowFor(b, root, '/tmp')),
		activate: MODES.flatMap((mode) => SIZES.map((size) => batchId(mode, size))),
		workers: 2,
		webhooks: 1,
		env: { ...N8N_ENV, ...(PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}) },
	});
	const lines: string[] = [];
	try {
		const cookie = await ownerSession(stack.main);
		// n8n keeps busy for a while after it has started and the workflows were activated.
		await new Promise((r) => setTimeout(r, SETTLE_MS));
		for (const b of batches) {
			const line = queueLineOf(version, await runBatch(stack, cookie, b));
			console.log(line);
			lines.push(line);
		}
	} finally {
		await stack.shutdown();
	}
	return lines;
}
