/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What `npm run bench -- n8n` reads after each variant: the n8n process's CPU time, the sandbox's request log and
// credit ledger for the variant's account, and the finished execution as n8n stored it.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import { rest, type N8nInstance } from '../../scripts/realN8n';
import { parseFlatted } from '../../test/e2e/shared';

/** Linux reports process times in clock ticks of 1/100 s (CLK_TCK on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds one process has used so far (/proc/<pid>/stat, fields 14 and 15). */
function ownCpuSeconds(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
	} catch {
		return 0; // the process has ended
	}
}

/** Child processes of `pid` (n8n starts a task runner beside itself). */
function childrenOf(pid: number): number[] {
	try {
		return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
			readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
		);
	} catch {
		return [];
	}
}

/** CPU seconds used so far by a process and its descendants still alive. */
export function cpuSeconds(pid: number): number {
	return ownCpuSeconds(pid) + childrenOf(pid).reduce((sum, child) => sum + cpuSeconds(child), 0);
}

/** As cpuSeconds, plus the children that have ended (fields 16 and 17): Postgres starts and ends its workers. */
export function cpuSecondsWithEnded(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return cpuSeconds(pid) + (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
	} catch {
		return 0;
	}
}

/** CPU seconds so far of each thread of a process and its live descendants, by "pid/thread name". */
export function threadCpuSeconds(pid: number, into = new Map<string, number>()): Map<string, number> {
	try {
		for (const tid of readdirSync(`/proc/${pid}/task`)) {
			const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
			const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			const key = `${pid}/${name}`;
			into.set(key, (into.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
		}
	} catch {
		return into; // the process has ended
	}
	for (const child of childrenOf(pid)) threadCpuSeconds(child, into);
	return into;
}

/** The `count` threads that spent the most CPU between two readings of threadCpuSeconds, in ms per run. */
export function topThreads(
	before: Map<string, number>,
	after: Map<string, number>,
	runs: number,
	count = 5,
): Array<[string, number]> {
	return [...after]
		.map(([name, s]): [string, number] => [name, ((s - (before.get(name) ?? 0)) * 1000) / runs])
		.sort((x, y) => y[1] - x[1])
		.slice(0, count);
}

export interface AccountFigures {
	/** Requests to /v1 under the account's key (submissions, reads, anything else). */
	apiRequests: number;
	submissions: number;
	reads: number;
	busy409: number;
	limited429: number;
	/** Ledger lines that charged the account, and those that refunded it. */
	charges: number;
	refunds: number;
	/** Runs the account has on the service. */
	runs: number;
	promptsCharged: Set<string>;
}

export function accountFigures(sb: Sandbox, ownerId: string): AccountFigures {
	const log = sb.engine.log.filter((e) => e.ownerId === ownerId);
	const ledger = sb.engine.ledger.filter((l) => l.ownerId === ownerId);
	const runs = [...sb.engine.runs.values()].filter((r) => r.ownerId === ownerId);
	const charged = ledger.filter((l) => l.reason === 'charge');
	const promptOf = new Map(runs.map((r) => [r.id, r.prompt]));
	return {
		apiRequests: log.length,
		submissions: log.filter((e) => e.method === 'POST' && e.path.startsWith('/v1/generations')).length,
		reads: log.filter((e) => e.method === 'GET' && e.path.startsWith('/v1/generations/')).length,
		busy409: log.filter((e) => e.status === 409).length,
		limited429: log.filter((e) => e.status === 429).length,
		charges: charged.length,
		refunds: ledger.filter((l) => l.reason === 'refund' || l.reason === 'provider_refund').length,
		runs: runs.length,
		promptsCharged: new Set(charged.map((l) => promptOf.get(l.runId ?? '') ?? l.runId ?? '')),
	};
}

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/**
 * Follows the newest execution of a workflow in n8n's SQLite database (read-only, through the sqlite3 shell, so
 * the n8n process does no work for it) every `everyMs`: when it ends, and how long it was `running` (not
 * `waiting`), to the sampling interval.
 */
/** The sqlite3 shell the execution follower reads n8n's database with; Debian's package when missing (as root). */
export function ensureSqliteShell(): void {
	try {
		execFileSync('sqlite3', ['-version'], { stdio: 'ignore' });
	} catch {
		console.log("sqlite3 is missing: installing Debian's sqlite3 with apt-get…");
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
		execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'sqlite3'], { stdio: 'inherit', env });
	}
}

/**
 * Asks a database shell (`command args`, reading queries on stdin) `query` every `everyMs` until a row it answers,
 * `S|<id>|<status>|…`, has a finished status; `onRow` sees every row (its fields after the tag) on the way.
 */
export async function followInShell(
	command: string,
	args: string[],
	query: string,
	what: string,
	onRow: (fields: string[]) => void,
	everyMs: number,
	limitMs: number,
): Promise<{ id: string; status: string }> {
	const shell = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
	let pending = '';
	let ended = false;
	shell.stdin.on('error', () => undefined); // the shell is killed once the execution has ended
	const deadline = Date.now() + limitMs;
	try {
		return await new Promise((resolve, reject) => {
			shell.on('error', reject);
			shell.stdout.on('data', (chunk: Buffer) => {
				pending += chunk.toString();
				const lines = pending.split('\n');
				pending = lines.pop() ?? '';
				for (const line of lines) {
					const [tag, ...fields] = line.split('|');
					if (tag !== 'S' || !fields[0]) continue;
					onRow(fields);
					const [id, status] = fields;
					if (FINISHED.includes(status) && !ended) {
						ended = true;
						resolve({ id, status });
					}
				}
			});
			const tick = () => {
				if (ended) return;
				if (Date.now() > deadline) return reject(new Error(`bench: ${what} did not end in time`));
				shell.stdin.write(query);
				setTimeout(tick, everyMs);
			};
			tick();
		});
	} finally {
		shell.kill();
	}
}

/** Follows a workflow's newest execution in n8n's SQLite database; `runningMs`: how long it was `running`. */
export async function followExecution(
	n8n: N8nInstance,
	workflowId: string,
	everyMs = 100,
	limitMs = 30 * 60_000,
): Promise<{ id: string; status: string; runningMs: number }> {
	const db = path.join(n8n.userFolder, '.n8n', 'database.sqlite');
	const query =
		"SELECT 'S|' || coalesce((SELECT id || '|' || status FROM execution_entity " +
		`WHERE workflowId = '${workflowId}' ORDER BY id DESC LIMIT 1), '');\n`;
	let runningMs = 0;
	let last: { at: number; status: string } | undefined;
	const onRow = ([, status]: string[]) => {
		const now = Date.now();
		if (last?.status === 'running') runningMs += now - last.at;
		last = { at: now, status };
	};
	const ended = await followInShell('sqlite3', ['-readonly', '-batch', db], query, workflowId, onRow, everyMs, limitMs);
	return { ...ended, runningMs };
}

export interface Execution {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
}

export async function executionsOf(n8n: N8nInstance, cookie: string, workflowId: string): Promise<Execution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const res = await rest<{ data: { results: Execution[] } }>(n8n, cookie, `/rest/executions?filter=${filter}&limit=20`);
	return res.data.results;
}

type Item = { json: Record<string, unknown>; binary?: Record<string, { mimeType?: string }> };
export interface TaskData {
	startTime: number;
	executionTime: number;
	data?: { main: Array<Item[] | null> };
	error?: { message: string };
}
export interface StoredExecution {
	runData: Record<string, TaskData[]>;
	error?: { message: string };
}

/** The run data of a stored execution (n8n stores it with flatted). */
export async function storedExecution(n8n: N8nInstance, cookie: string, id: string): Promise<StoredExecution> {
	const res = await rest<{ data: { data: string } }>(n8n, cookie, `/rest/executions/${id}`);
	const data = parseFlatted(res.data.data) as { resultData: StoredExecution };
	return data.resultData;
}

/** Items a node put out on `output` in its last run (a loop's done output, a resumed node's results). */
export function lastOutput(stored: StoredExecution, node: string, output = 0): Item[] {
	const runs = stored.runData[node] ?? [];
	return runs[runs.length - 1]?.data?.main[output] ?? [];
}
