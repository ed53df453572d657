/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// n8n in queue mode on this machine, as teams that outgrow one process run it: Redis and Postgres
// (scripts/services.sh), one main process (`n8n start`), workers (`n8n worker`) and a webhook
// process (`n8n webhook`), all with EXECUTIONS_MODE=queue, the same Postgres database and the same
// encryption key, and the package installed from its tarball into each process's own user folder
// (as on separate machines). The sandbox, credentials and workflows are set up as in stack.ts.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startSandbox, type Sandbox } from '../sandbox/server';
import type { SandboxConfig } from '../sandbox/config';
import { newWebhookSecret } from '../sandbox/webhooks';
import {
	activateWorkflow,
	freePort,
	importCredentials,
	importWorkflows,
	prepareN8n,
	REPO,
	type N8nInstance,
	type StoredCredential,
} from './realN8n';

export type Role = 'main' | 'worker' | 'webhook';

export interface N8nProcess {
	name: string;
	role: Role;
	instance: N8nInstance;
	child?: ChildProcess;
	log: string[];
}

export interface QueueStack {
	sandbox: Sandbox;
	apiKey: string;
	accountId: string;
	webhookSecret: string;
	dir: string;
	redisPort: number;
	pgPort: number;
	/** The main process (editor, REST API); `rest()` and `n8nCli()` take it. */
	main: N8nInstance;
	processes: Map<string, N8nProcess>;
	/** Where webhook endpoints point: the webhook process (WEBHOOK_URL). */
	webhookBase: string;
	mainBase: string;
	/** Starts a process (a worker by default) and waits until it is ready. */
	start(name: string, role?: Role): Promise<N8nProcess>;
	/** Stops a process: SIGTERM (n8n's graceful shutdown), or SIGKILL to its process group. */
	stop(name: string, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
	shutdown(): Promise<void>;
}

const READY: Record<Role, string> = {
	main: 'Editor is now accessible',
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests',
};
const COMMAND: Record<Role, string[]> = {
	main: ['start'],
	worker: ['worker', '--concurrency=5'],
	webhook: ['webhook'],
};

function services(...args: string[]): string {
	return execFileSync('bash', [path.join(REPO, 'scripts/services.sh'), ...args], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
}

export interface QueueStackOptions {
	sandbox?: Partial<SandboxConfig>;
	/** Workflows to import (with ids), given the sandbox's root URL; `activate` lists those activated before start. */
	workflows: (sandboxRoot: string, sandbox: Sandbox) => Array<Record<string, unknown>>;
	/** Credentials beside the stack's own three (for example one account per batch), made before the workflows. */
	credentials?: (sandbox: Sandbox) => StoredCredential[];
	activate: string[];
	workers?: number;
	/** Webhook processes: `webhook`, then `webhook2`, … (each on its own port; WEBHOOK_URL names the first). */
	webhooks?: number;
	version?: string;
	/** Extra settings for every process (for example n8n's QUEUE_WORKER_* Bull settings). */
	env?: NodeJS.ProcessEnv;
}

export async function bootQueueStack(options: QueueStackOptions): Promise<QueueStack> {
	services('ensure');
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mediagen-queue-'));
	chmodSync(dir, 0o711); // Postgres runs as its own user when we are root: it must reach services/
	const out = services('start', path.join(dir, 'services'));
	const value = (k: string) => Number(new RegExp(`^${k}=(\\d+)$`, 'm').exec(out)?.[1]);
	const redisPort = value('REDIS_PORT');
	const pgPort = value('PG_PORT');
	const sandbox = await startSandbox({
		durations: { pendingMs: 200, image: 1500, video: 2500, music: 2000 },
		...options.sandbox,
	});
	const account = sandbox.engine.createAccount({ credits: 5000, concurrency: 3 });
	const webhookSecret = newWebhookSecret();
	const webhookPort = await freePort();
	const mainPort = await freePort();
	const webhookBase = `http://127.0.0.1:${webhookPort}`;
	const queueEnv = (port: number): NodeJS.ProcessEnv => ({
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pgPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		// 2.x: binary data in Postgres (the queue-mode default); 1.x keeps it in the execution data
		N8N_DEFAULT_BINARY_DATA_MODE: Number((options.version ?? '2').split('.')[0]) >= 2 ? 'database' : 'default',
		WEBHOOK_URL: `${webhookBase}/`,
		N8N_PORT: String(port),
		QUEUE_HEALTH_CHECK_ACTIVE: 'false',
	});
	const processes = new Map<string, N8nProcess>();
	const prepare = async (name: string, role: Role): Promise<N8nProcess> => {
		const port = name === 'main' ? mainPort : name === 'webhook' ? webhookPort : await freePort();
		const instance = await prepareN8n({ userFolder: path.join(dir, name), port, version: options.version });
		Object.assign(instance.env, queueEnv(port), options.env, { QUEUE_HEALTH_CHECK_PORT: String(await freePort()) });
		const proc: N8nProcess = { name, role, instance, log: [] };
		processes.set(name, proc);
		return proc;
	};

	const launch = async (proc: N8nProcess, timeoutMs = 240_000): Promise<N8nProcess> => {
		const { instance } = proc;
		// a fresh task-broker port on every start: the killed process's port may still be held
		instance.env.N8N_RUNNERS_BROKER_PORT = String(await freePort());
		proc.log = [];
		const file = createWriteStream(path.join(dir, `${proc.name}.log`), { flags: 'a' });
		// detached: its own process group, so a SIGKILL reaches whatever n8n started
		const child = spawn('node', [path.join(instance.cache, 'node_modules/n8n/bin/n8n'), ...COMMAND[proc.role]], {
			env: instance.env,
			cwd: instance.userFolder,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		proc.child = child;
		if (proc.role === 'main') instance.server = child;
		const collect = (b: Buffer) => {
			file.write(b);
			proc.log.push(b.toString());
			if (proc.log.length > 4000) proc.log.splice(0, 2000);
		};
		child.stdout!.on('data', collect);
		child.stderr!.on('data', collect);
		child.on('exit', () => file.end());
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (child.exitCode !== null) throw new Error(`n8n ${proc.name} exited early:\n${proc.log.join('').slice(-3000)}`);
			if (proc.log.join('').includes(READY[proc.role])) return proc;
			await new Promise((r) => setTimeout(r, 500));
		}
		throw new Error(`n8n ${proc.name} was not ready within ${timeoutMs / 1000} s:\n${proc.log.join('').slice(-3000)}`);
	};

	const stop = async (name: string, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> => {
		const child = processes.get(name)?.child;
		if (!child || child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		if (signal === 'SIGKILL') process.kill(-child.pid!, 'SIGKILL');
		else child.kill('SIGTERM');
		const timer = setTimeout(() => {
			if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
		}, 30_000);
		await exited;
		clearTimeout(timer);
	};

	const shutdown = async (): Promise<void> => {
		await Promise.all([...processes.keys()].filter((n) => n !== 'main').map(async (n) => await stop(n)));
		await stop('main');
		services('stop', path.join(dir, 'services'));
		await sandbox.close();
		if (!process.env.MEDIAGEN_KEEP_QUEUE_DIR) rmSync(dir, { recursive: true, force: true });
	};

	let main: N8nProcess;
	try {
		main = await prepare('main', 'main');
		await importCredentials(main.instance, [
			{
				id: 'mediagenSandboxKey',
				name: 'Media Generation sandbox',
				type: 'mediaGenApi',
				data: { baseUrl: sandbox.baseUrl, apiKey: account.keys[0] },
			},
			{
				id: 'mediagenSandboxWebhook',
				name: 'Media Generation sandbox webhook',
				type: 'mediaGenWebhookApi',
				data: { secret: webhookSecret, previousSecret: '' },
			},
			// Per-run webhook URLs (pause mode) are signed with the account's own secret in the sandbox.
			{
				id: 'mediagenSandboxAccountSecret',
				name: 'Media Generation sandbox account secret',
				type: 'mediaGenWebhookApi',
				data: { secret: account.webhookSecret, previousSecret: '' },
			},
			...(options.credentials?.(sandbox) ?? []),
		]);
		await importWorkflows(main.instance, options.workflows(sandbox.rootUrl, sandbox));
		for (const id of options.activate) await activateWorkflow(main.instance, id);
		await launch(main);
		const others: Array<[string, Role]> = [['webhook', 'webhook']];
		for (let i = 2; i <= (options.webhooks ?? 1); i++) others.push([`webhook${i}`, 'webhook']);
		for (let i = 1; i <= (options.workers ?? 2); i++) others.push([`worker${i}`, 'worker']);
		await Promise.all(others.map(async ([name, role]) => await launch(await prepare(name, role))));
	} catch (error) {
		await shutdown();
		throw error;
	}

	return {
		sandbox,
		apiKey: account.keys[0],
		accountId: account.id,
		webhookSecret,
		dir,
		redisPort,
		pgPort,
		main: main.instance,
		processes,
		webhookBase,
		mainBase: `http://127.0.0.1:${mainPort}`,
		async start(name, role = 'worker') {
			const proc = processes.get(name) ?? (await prepare(name, role));
			return await launch(proc);
		},
		stop,
		shutdown,
	};
}
