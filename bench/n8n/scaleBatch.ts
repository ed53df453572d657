/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What both layouts of `npm run bench -- pause-scale` share (one process: pauseScale.ts; queue mode:
// pauseScaleQueue.ts): the options, the batches (one account and one Webhook → Split Out → Generate workflow per mode
// and size), the request that starts a batch, and what the sandbox's ledger and delivery log say about it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import { localiseWorkflow, type StoredCredential } from '../../scripts/realN8n';

const ROOT = path.resolve(__dirname, '../..');
export const arg = (name: string, fallback: string) => {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : fallback;
};
export const SIZES = arg('--sizes', '40,300,1000').split(',').map(Number);
export const MODES = arg('--modes', 'pause,poll').split(',') as Array<'pause' | 'poll'>;
export const RUN_MS = Number(arg('--run-ms', '2000'));
export const SLOTS = Number(arg('--slots', '2'));
/** A folder for n8n's CPU profiles (node --cpu-prof, one per process, written when it stops): where time goes. */
export const PROFILE_DIR = arg('--cpu-prof', '');
/**
 * Settings for every n8n process, `--n8n-env K=V,K=V`: to measure n8n's own knobs, for example
 * N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true or N8N_EXPRESSION_ENGINE_POOL_SIZE=4.
 */
export const N8N_ENV: Record<string, string> = Object.fromEntries(
	arg('--n8n-env', '')
		.split(',')
		.filter(Boolean)
		.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
/** How a line names the settings it ran with: ` (N8N_…=…)`, or nothing. */
export const envNote = () => {
	const set = Object.entries(N8N_ENV).map(([k, v]) => `${k}=${v}`);
	return set.length ? ` (${set.join(', ')})` : '';
};
/** `one` (one n8n process, SQLite) or `queue` (main, 2 workers, 1 webhook process, Postgres and Redis). */
export const LAYOUT = arg('--layout', 'one') as 'one' | 'queue';
const TIME_LIMIT_MINUTES = 120;

export interface Batch {
	mode: 'pause' | 'poll';
	size: number;
	id: string;
	hookPath: string;
	account: Account;
}

/** The sandbox of the bench: real time, every image run RUN_MS long, rate limits lifted. */
export const SANDBOX = {
	timeScale: 1,
	durations: { pendingMs: 0, image: RUN_MS, video: 90_000, music: 60_000 },
	// The spec's 20 submissions a minute would set the pace (1,000 runs: 50 minutes), not n8n: lifted here.
	rateLimits: {
		submitPerIdentity: 1e6,
		submitPerAddress: 1e6,
		readPerIdentity: 1e6,
		readPerAddress: 1e6,
		uploadPerIdentity: 1e6,
	},
};

/** The workflow id of a batch (at most 16 characters: n8n 1.x drops static data of longer ones). */
export const batchId = (mode: 'pause' | 'poll', size: number) =>
	`mgScale${mode === 'pause' ? 'Pause' : 'Poll0'}${String(size).padStart(4, '0')}`;

/** One batch per mode and size, each on its own account with SLOTS slots. */
export function batchesOn(sb: Sandbox): Batch[] {
	return MODES.flatMap((mode) =>
		SIZES.map((size) => ({
			mode,
			size,
			id: batchId(mode, size),
			hookPath: `mg-scale-${mode}-${size}`,
			account: sb.engine.createAccount({ credits: 10_000_000, concurrency: SLOTS }),
		})),
	);
}

export function credentialsOf(batches: Batch[], sb: Sandbox): StoredCredential[] {
	return batches.flatMap((b): StoredCredential[] => [
		{
			id: `${b.id}Key`,
			name: `${b.id}: API key`,
			type: 'mediaGenApi',
			data: { baseUrl: sb.baseUrl, apiKey: b.account.keys[0] },
		},
		{
			id: `${b.id}Secret`,
			name: `${b.id}: signing secret`,
			type: 'mediaGenWebhookApi',
			data: { secret: b.account.webhookSecret, previousSecret: '' },
		},
	]);
}

export function workflowFor(b: Batch, sandboxRoot: string, outputDir: string): Record<string, unknown> {
	const file = path.join(ROOT, 'bench/workflows', b.mode === 'pause' ? 'mediagen-pause.json' : 'mediagen-poll.json');
	const text = readFileSync(file, 'utf8')
		.split('mgBenchApiKey')
		.join(`${b.id}Key`)
		.split('mgBenchSigningSecret')
		.join(`${b.id}Secret`);
	const wf = localiseWorkflow(JSON.parse(text) as Record<string, unknown>, sandboxRoot, outputDir, b.id);
	for (const node of wf.nodes as Array<Record<string, unknown> & { parameters: Record<string, unknown> }>) {
		// In pause mode the Time Limit counts for the whole batch from the pause: 1,000 runs need more than 3 minutes.
		if (node.name === 'Generate')
			node.parameters.waiting = { pollIntervalSeconds: 3, timeoutMinutes: TIME_LIMIT_MINUTES };
		if (node.type !== 'n8n-nodes-base.webhook') continue;
		node.parameters.path = b.hookPath;
		node.webhookId = randomUUID();
	}
	return { ...wf, name: `Scale: ${b.mode} ${b.size}` };
}

/** Starts a batch through its Webhook node at `webhookBase` (the n8n process that takes webhooks). */
export async function startBatch(b: Batch, webhookBase: string): Promise<void> {
	const items = Array.from({ length: b.size }, (_, i) => ({
		kind: 'image',
		model: 'studio-image-v1',
		prompt: `scale ${b.mode} ${b.size} image ${i + 1}: a lighthouse at dusk`,
	}));
	const res = await fetch(`${webhookBase}/webhook/${b.hookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ items }),
	});
	if (!res.ok) throw new Error(`bench:pause-scale: starting ${b.id} gave HTTP ${res.status} ${await res.text()}`);
	await res.text();
}

export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The service's side of a batch: deliveries (time per delivery by quarter, answers other than 2xx) and charges. */
export function serviceFigures(b: Batch, sb: Sandbox) {
	const deliveries = sb.engine.webhooks.deliveries.filter((d) => d.ownerId === b.account.id);
	const attempts = deliveries.flatMap((d) => d.attempts).sort((x, y) => x.at - y.at);
	const quarter = Math.max(1, Math.ceil(attempts.length / 4));
	return {
		idealMs: Math.ceil(b.size / SLOTS) * RUN_MS,
		deliveryMsByQuarter: [0, 1, 2, 3]
			.map((q) => attempts.slice(q * quarter, (q + 1) * quarter).map((a) => a.tookMs))
			.filter((xs) => xs.length)
			.map(mean),
		deliveries: attempts.length,
		non2xx: attempts.filter((a) => a.status === null || a.status < 200 || a.status > 299).length,
		non2xxStatuses: [...new Set(attempts.filter((a) => !(a.status! >= 200 && a.status! <= 299)).map((a) => a.status))],
		charges: sb.engine.ledger.filter((l) => l.ownerId === b.account.id && l.reason === 'charge').length,
	};
}

/** One `makespan / ideal` figure and its parts. */
export const ratio = (makespanMs: number, idealMs: number) =>
	`makespan/ideal ${(makespanMs / idealMs).toFixed(3)} (${(makespanMs / 1000).toFixed(1)} s / ${(idealMs / 1000).toFixed(0)} s)`;
