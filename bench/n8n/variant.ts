/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// One way of running the job in n8n: start its workflow with the job's items, wait for the execution to end,
// then read what it cost: makespan (n8n's own start and stop times), the n8n process's CPU time, the account's
// requests, busy and rate-limit answers, charges, and the files that came out.
import type { Sandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import type { N8nInstance } from '../../scripts/realN8n';
import type { JobItem } from './job';
import {
	accountFigures,
	cpuSeconds,
	executionsOf,
	followExecution,
	lastOutput,
	storedExecution,
	type AccountFigures,
} from './measure';

export interface Variant {
	/** Workflow id in n8n, and the prefix of the variant's credential ids. */
	id: string;
	label: string;
	file: string;
	hookPath: string;
	/** The nodes whose last output 0 holds the job's finished items. */
	resultNodes: string[];
	handBuilt: boolean;
	pause: boolean;
}

export const VARIANTS: Variant[] = [
	{
		id: 'mgBenchSerial001',
		label: 'hand-built serial',
		file: 'hand-built-serial.json',
		hookPath: 'mg-bench-serial',
		resultNodes: ['Loop Over Items'],
		handBuilt: true,
		pause: false,
	},
	{
		id: 'mgBenchBatched01',
		label: 'hand-built batched',
		file: 'hand-built-batched.json',
		hookPath: 'mg-bench-batched',
		resultNodes: ['Loop Over Items'],
		handBuilt: true,
		pause: false,
	},
	{
		id: 'mgBenchPoll00001',
		label: 'ours poll',
		file: 'mediagen-poll.json',
		hookPath: 'mg-bench-poll',
		resultNodes: ['Generate'],
		handBuilt: false,
		pause: false,
	},
	{
		id: 'mgBenchPause0001',
		label: 'ours pause',
		file: 'mediagen-pause.json',
		hookPath: 'mg-bench-pause',
		resultNodes: ['Generate'],
		handBuilt: false,
		pause: true,
	},
];

export interface VariantResult {
	variant: Variant;
	status: string;
	makespanMs: number;
	cpuSeconds: number;
	/** How long n8n listed the execution as running (not waiting), sampled every 100 ms. */
	heldMs: number;
	delivered: number;
	failedItems: number;
	account: AccountFigures;
	error?: string;
}

const SAMPLE_MS = 1000;
const LIMIT_MS = 5 * 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
	const deadline = Date.now() + LIMIT_MS;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`bench:n8n: timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, SAMPLE_MS));
	}
}

export async function runVariant(p: {
	variant: Variant;
	n8n: N8nInstance;
	cookie: string;
	sb: Sandbox;
	account: Account;
	items: JobItem[];
	pid: number;
}): Promise<VariantResult> {
	const { variant: v, n8n, cookie } = p;
	const hook = `http://127.0.0.1:${n8n.port}/webhook/${v.hookPath}`;
	// A GET to a POST webhook is answered "not registered for GET requests" once the workflow is active.
	await until(`the ${v.label} webhook`, async () => {
		const res = await fetch(hook, { method: 'GET' });
		return /registered for GET/i.test(await res.text()) ? true : undefined;
	});
	const cpuBefore = cpuSeconds(p.pid);
	const res = await fetch(hook, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ items: p.items }),
	});
	if (!res.ok) throw new Error(`bench:n8n: starting ${v.label} gave HTTP ${res.status} ${await res.text()}`);
	await res.text();
	const followed = await followExecution(n8n, v.id);
	const cpu = cpuSeconds(p.pid) - cpuBefore;
	const done = (await executionsOf(n8n, cookie, v.id)).find((e) => e.id === followed.id);
	if (!done?.stoppedAt) throw new Error(`bench:n8n: n8n lists no end for execution ${followed.id} of ${v.label}`);
	const makespanMs = Date.parse(done.stoppedAt) - Date.parse(done.startedAt);
	const stored = await storedExecution(n8n, cookie, done.id);
	const finished = v.resultNodes.flatMap((node) => lastOutput(stored, node, 0));
	const delivered = finished.filter((i) => i.binary?.data && (v.handBuilt || i.json.status === 'SUCCEEDED')).length;
	return {
		variant: v,
		status: done.status,
		makespanMs,
		cpuSeconds: cpu,
		heldMs: followed.runningMs,
		delivered,
		failedItems: p.items.length - delivered,
		account: accountFigures(p.sb, p.account.id),
		error: stored.error?.message,
	};
}
