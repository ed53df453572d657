/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench -- n8n`: the same 18-run job (6 videos, 12 images, concurrency 3, seeded durations) run four ways
// in one real n8n with the package installed from its tarball, one after the other: the two hand-built
// workflows of bench/workflows (HTTP Request + Wait + IF loops, serial and batched), then our node in poll mode
// and in pause mode. Prints one line per figure; `--write` (`npm run bench -- n8n --write`) stores them in
// bench/RESULTS.md. `--scale <s>` sets the time scale (default 0.2: runs, Wait and rate windows × 0.2).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startSandbox } from '../../sandbox/server';
import type { Account } from '../../sandbox/types';
import {
	importCredentials,
	importWorkflows,
	localiseWorkflow,
	ownerSession,
	prepareN8n,
	setWorkflowActive,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import {
	CONCURRENCY,
	durationsOf,
	jobItems,
	optimalMakespanMs,
	optimalPerKindMs,
	perKindIdealMs,
	sandboxSettings,
	SEED,
} from './job';
import { cpuSeconds, ensureSqliteShell } from './measure';
import { printFigures, type VariantResult } from './report';
import { runVariant, VARIANTS, type Variant } from './variant';

const ROOT = path.resolve(__dirname, '../..');
const argValue = (name: string) => {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
};
const SCALE = Number(argValue('--scale') ?? process.env.BENCH_N8N_SCALE ?? 0.2);
const WRITE = process.argv.includes('--write') || process.env.npm_config_write === 'true';
/** n8n's HTTP Request node allows at most 5 tries, 5 s apart: what a careful user sets, time-scaled. */
const USER_WAIT_SECONDS = 5;
/** Our node's default "Check Every" (the service suggests 3 to 5 s), time-scaled; the node allows 1 s at least. */
const OUR_POLL_SECONDS = Math.max(1, 3 * SCALE);
/** n8n keeps busy for a while after it has started and the workflows were activated; then its idle use is read. */
const SETTLE_MS = 20_000;
const IDLE_SAMPLE_MS = 10_000;

/** A bench workflow for this n8n: sandbox address, the variant's credentials, waits scaled like the runs. */
function workflowFor(variant: Variant, sandboxRoot: string, n8n: N8nInstance): Record<string, unknown> {
	const file = path.join(ROOT, 'bench/workflows', variant.file);
	const text = readFileSync(file, 'utf8')
		.split('mgBenchHeaderAuth')
		.join(`${variant.id}Header`)
		.split('mgBenchApiKey')
		.join(`${variant.id}Key`)
		.split('mgBenchSigningSecret')
		.join(`${variant.id}Secret`);
	const wf = localiseWorkflow(JSON.parse(text) as Record<string, unknown>, sandboxRoot, n8n.outputDir, variant.id);
	for (const node of wf.nodes as Array<Record<string, unknown> & { parameters: Record<string, unknown> }>) {
		if (node.type === 'n8n-nodes-base.wait') node.parameters.amount = Number(node.parameters.amount) * SCALE;
		if (node.retryOnFail) node.waitBetweenTries = Math.round(Number(node.waitBetweenTries) * SCALE);
		const waiting = node.parameters.waiting as Record<string, unknown> | undefined;
		if (waiting) waiting.pollIntervalSeconds = OUR_POLL_SECONDS;
	}
	return wf;
}

async function main(): Promise<void> {
	ensureSqliteShell();
	const settings = sandboxSettings(SCALE);
	const sb = await startSandbox(settings);
	const accounts = new Map<string, Account>(
		VARIANTS.map((v) => [v.id, sb.engine.createAccount({ credits: 100_000, concurrency: CONCURRENCY })]),
	);
	const n8n = await prepareN8n();
	await importCredentials(
		n8n,
		VARIANTS.flatMap((v): Array<{ id: string; name: string; type: string; data: Record<string, string> }> => {
			const account = accounts.get(v.id)!;
			const key = account.keys[0];
			return [
				{
					id: `${v.id}Header`,
					name: `${v.label}: API key header`,
					type: 'httpHeaderAuth',
					data: { name: 'Authorization', value: `Bearer ${key}` },
				},
				{
					id: `${v.id}Key`,
					name: `${v.label}: API key`,
					type: 'mediaGenApi',
					data: { baseUrl: sb.baseUrl, apiKey: key },
				},
				{
					id: `${v.id}Secret`,
					name: `${v.label}: signing secret`,
					type: 'mediaGenWebhookApi',
					data: { secret: account.webhookSecret, previousSecret: '' },
				},
			];
		}),
	);
	await importWorkflows(
		n8n,
		VARIANTS.map((v) => workflowFor(v, sb.rootUrl, n8n)),
	);
	await startServer(n8n);
	try {
		const cookie = await ownerSession(n8n);
		for (const v of VARIANTS) await setWorkflowActive(n8n, cookie, v.id, true);
		const pid = n8n.server!.pid!;
		// What the idle n8n process spends (its own timers), subtracted from each variant's CPU time.
		await new Promise((r) => setTimeout(r, SETTLE_MS));
		const idleFrom = cpuSeconds(pid);
		await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
		const idlePerSecond = (cpuSeconds(pid) - idleFrom) / (IDLE_SAMPLE_MS / 1000);
		const items = jobItems();
		const results: VariantResult[] = [];
		for (const v of VARIANTS) {
			results.push(await runVariant({ variant: v, n8n, cookie, sb, account: accounts.get(v.id)!, items, pid }));
			console.error(`bench:n8n: ${v.label} done`);
		}
		const durations = durationsOf(items, settings);
		const lines = printFigures({
			results,
			items,
			durations,
			scale: SCALE,
			seed: SEED,
			optimalMs: optimalMakespanMs(durations),
			optimalPerKindMs: optimalPerKindMs(items, durations),
			perKindMs: perKindIdealMs(items, SCALE),
			userWaitSeconds: USER_WAIT_SECONDS * SCALE,
			ourPollSeconds: OUR_POLL_SECONDS,
			idlePerSecond,
			n8nVersion: n8n.version,
		});
		if (WRITE) {
			const { writeN8nResults } = await import('./report');
			const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version} (bench)`;
			writeN8nResults(path.join(ROOT, 'bench/RESULTS.md'), lines, machine);
		}
	} finally {
		await stopServer(n8n);
		await sb.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
