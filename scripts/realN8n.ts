/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real n8n on this machine, for the demo, the dev editor and the end-to-end tests: installs it
// once into a cache outside the repo (scripts/install-n8n.sh), runs its CLI and server on the Node
// that version needs, with our package installed from its `npm pack` tarball into the user
// folder's `nodes/` package, as n8n's Community Nodes installer does (scripts/communityPackage.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { installCommunityPackage } from './communityPackage';

export const REPO = path.resolve(__dirname, '..');
/** The `KEY=value` lines of a file under scripts/ that bash sources too (n8n-versions.env, previous-release.env). */
export function readEnvFile(name: string): Record<string, string> {
	const text = readFileSync(path.join(REPO, 'scripts', name), 'utf8');
	return Object.fromEntries(
		text
			.split('\n')
			.map((line) => /^([A-Z0-9_]+)=(\S+)$/.exec(line.trim()))
			.filter((m): m is RegExpExecArray => m !== null)
			.map((m) => [m[1], m[2]]),
	);
}
const VERSIONS = readEnvFile('n8n-versions.env');
/** The main 2.x version: the e2e suite, `npm run dev`, the editor tests, queue mode. */
export const N8N_MAIN_VERSION = VERSIONS.N8N_MAIN_VERSION;
/** The newest 1.x, tested beside it. */
export const N8N_V1_VERSION = VERSIONS.N8N_V1_VERSION;
/** Both, as MEDIAGEN_N8N_VERSIONS lists them ("2.x 1.x") unless that variable is set. */
export const N8N_VERSIONS = (process.env.MEDIAGEN_N8N_VERSIONS || `${N8N_MAIN_VERSION} ${N8N_V1_VERSION}`)
	.split(/\s+/)
	.filter(Boolean);
/** The n8n version the scripts and tests run on (`MEDIAGEN_N8N_VERSION`, default the main version). */
export const N8N_VERSION = process.env.MEDIAGEN_N8N_VERSION || N8N_MAIN_VERSION;
export const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
/** Our node types as n8n names them when the package is installed as a community package. */
export const TYPE_PREFIX = 'n8n-nodes-mediagen.';
/** Kept for callers written when the package was loaded as custom extensions (`CUSTOM.`): now TYPE_PREFIX. */
export const CUSTOM_PREFIX = TYPE_PREFIX;
export const OWNER = {
	email: 'owner@mediagen.local',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Mediagen-demo-1',
};

/** Installs n8n `version` once (cached under ~/.cache) and returns its folder. */
export function ensureN8n(version = N8N_VERSION): string {
	const out = execFileSync('bash', [path.join(REPO, 'scripts/install-n8n.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { ...process.env, N8N_VERSION: version },
	});
	return out.trim().split('\n').pop()!;
}

/** The bin folder of the Node that runs the n8n in `cache` (written by install-n8n.sh). */
export function nodeBinOf(cache: string): string {
	const file = path.join(cache, '.node-bin');
	return existsSync(file) ? readFileSync(file, 'utf8').trim() : path.join(cache, 'node24/node_modules/node/bin');
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
		srv.on('error', reject);
	});
}

export interface N8nInstance {
	version: string;
	cache: string;
	userFolder: string;
	outputDir: string;
	port: number;
	env: NodeJS.ProcessEnv;
	server?: ChildProcess;
	log: string[];
}

export async function prepareN8n(
	options: {
		userFolder?: string;
		port?: number;
		version?: string;
		tarball?: string;
		/** false: no package laid out beforehand (the install tests install it through n8n itself). */
		withPackage?: boolean;
	} = {},
): Promise<N8nInstance> {
	const version = options.version ?? N8N_VERSION;
	const cache = ensureN8n(version);
	const userFolder = options.userFolder ?? mkdtempSync(path.join(os.tmpdir(), 'mediagen-n8n-'));
	const outputDir = path.join(userFolder, 'files');
	mkdirSync(outputDir, { recursive: true });
	if (options.withPackage !== false) installCommunityPackage(userFolder, options.tarball);
	const port = options.port ?? (await freePort());
	const nodeBin = nodeBinOf(cache);
	// Not the test runner's environment: under NODE_ENV=test n8n silences its CLI output.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([k]) => k !== 'NODE_ENV' && !k.startsWith('JEST_')),
	);
	const env: NodeJS.ProcessEnv = {
		...inherited,
		NODE_ENV: 'production',
		PATH: `${nodeBin}:${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENCRYPTION_KEY: 'mediagen-local-demo-key',
		N8N_RUNNERS_ENABLED: 'false',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_RESTRICT_FILE_ACCESS_TO: outputDir,
		N8N_LOG_LEVEL: 'info', // `n8n execute` prints the run data of a failed execution at info level
		DB_SQLITE_POOL_SIZE: '2',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
	};
	return { version, cache, userFolder, outputDir, port, env, log: [] };
}

/** Runs n8n's CLI asynchronously: a synchronous call would block an in-process sandbox the workflow talks to. */
export async function n8nCli(n8n: N8nInstance, args: string[], timeoutMs = 300_000): Promise<string> {
	const brokerPort = await freePort();
	return await new Promise((resolve, reject) => {
		// Each n8n process starts a task broker; give every CLI run its own port beside the server's.
		const env = { ...n8n.env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) };
		const child = spawn('node', [path.join(n8n.cache, 'node_modules/n8n/bin/n8n'), ...args], {
			env,
			cwd: n8n.userFolder,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
		child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('exit', (code) => {
			clearTimeout(timer);
			if (code === 0) resolve(stdout);
			else
				reject(
					Object.assign(
						new Error(`n8n ${args[0]} exited with ${code}:\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`),
						{ stdout, stderr },
					),
				);
		});
	});
}

/** Rewrites an example for this instance: sandbox and output addresses (node types stay the published ones). */
export function localiseWorkflow(
	workflow: Record<string, unknown>,
	sandboxRoot: string,
	outputDir: string,
	id: string,
): Record<string, unknown> {
	const text = JSON.stringify(workflow)
		.split('http://127.0.0.1:4010')
		.join(sandboxRoot)
		.split('/tmp/n8n-mediagen-demo')
		.join(outputDir);
	return { ...(JSON.parse(text) as Record<string, unknown>), id };
}

export const majorOf = (n8n: N8nInstance): number => Number(n8n.version.split('.')[0]);

/** Activates a workflow from the CLI before `start` (2.x: `publish:workflow`; 1.x: `update:workflow --active=true`). */
export async function activateWorkflow(n8n: N8nInstance, id: string): Promise<void> {
	const args =
		majorOf(n8n) >= 2 ? ['publish:workflow', `--id=${id}`] : ['update:workflow', `--id=${id}`, '--active=true'];
	await n8nCli(n8n, args);
}

/** Deactivates or activates a workflow of the running server (2.x: publish endpoints; 1.x: PATCH active). */
export async function setWorkflowActive(n8n: N8nInstance, cookie: string, id: string, active: boolean): Promise<void> {
	const at = `/rest/workflows/${id}`;
	const { data: wf } = await rest<{ data: { versionId: string } }>(n8n, cookie, at);
	if (majorOf(n8n) >= 2) {
		const body = active ? JSON.stringify({ versionId: wf.versionId }) : '{}';
		await rest(n8n, cookie, `${at}/${active ? 'activate' : 'deactivate'}`, { method: 'POST', body });
	} else {
		await rest(n8n, cookie, at, { method: 'PATCH', body: JSON.stringify({ active, versionId: wf.versionId }) });
	}
}

/** A credential as `n8n import:credentials` reads it (the data in plain text; n8n encrypts it on import). */
export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: Record<string, string>;
}

export async function importCredentials(n8n: N8nInstance, credentials: StoredCredential[]): Promise<void> {
	const file = path.join(n8n.userFolder, 'credentials.json');
	writeFileSync(file, JSON.stringify(credentials));
	await n8nCli(n8n, ['import:credentials', `--input=${file}`]);
}

/**
 * n8n 1.x ignores static data of workflows whose id is longer than 16 characters (isWorkflowIdValid in
 * cli/src/utils.ts: no save, no error), so an imported test workflow with a longer id silently loses it.
 */
function checkWorkflowId(workflow: Record<string, unknown>): void {
	const id = String(workflow.id);
	if (id.length > 16)
		throw new Error(`Workflow id "${id}" is longer than 16 characters: n8n 1.x drops its static data`);
}

export async function importWorkflow(n8n: N8nInstance, workflow: Record<string, unknown>): Promise<void> {
	checkWorkflowId(workflow);
	const file = path.join(n8n.userFolder, `wf-${String(workflow.id)}.json`);
	writeFileSync(file, JSON.stringify(workflow));
	await n8nCli(n8n, ['import:workflow', `--input=${file}`]);
}

/** Imports several workflows with one CLI run (`import:workflow --separate`): each CLI run boots n8n. */
export async function importWorkflows(n8n: N8nInstance, workflows: Array<Record<string, unknown>>): Promise<void> {
	workflows.forEach(checkWorkflowId);
	const dir = mkdtempSync(path.join(n8n.userFolder, 'workflows-'));
	for (const wf of workflows) writeFileSync(path.join(dir, `${String(wf.id)}.json`), JSON.stringify(wf));
	await n8nCli(n8n, ['import:workflow', '--separate', `--input=${dir}`]);
}

/** `n8n execute --id … --rawOutput`: the run data of a headless execution. */
export interface RunData {
	resultData: {
		runData: Record<
			string,
			Array<{
				data?: {
					main: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }>>;
				};
				error?: { message: string };
			}>
		>;
		error?: { message: string };
	};
}

/** `n8n execute --id … --rawOutput`: the run data of a headless execution, successful or not. */
export async function executeWorkflow(n8n: N8nInstance, id: string): Promise<RunData> {
	let out: string;
	try {
		out = await n8nCli(n8n, ['execute', `--id=${id}`, '--rawOutput']);
	} catch (error) {
		const e = error as { stdout?: string; message?: string };
		out = e.stdout || String(e.message);
	}
	// The run data is the first JSON document printed at the start of a line; log lines may follow it.
	const start = out.search(/^\{\s*$/m);
	if (start >= 0) {
		for (let end = out.indexOf('\n}', start); end >= 0; end = out.indexOf('\n}', end + 2)) {
			try {
				return (JSON.parse(out.slice(start, end + 2)) as { data: RunData }).data;
			} catch {
				// not the closing brace of the document yet
			}
		}
	}
	throw new Error(`No run data in the output of n8n execute ${id}:\n${out.slice(-3000)}`);
}

export async function startServer(n8n: N8nInstance, timeoutMs = 180_000): Promise<void> {
	const server = spawn('node', [path.join(n8n.cache, 'node_modules/n8n/bin/n8n'), 'start'], {
		env: n8n.env,
		cwd: n8n.userFolder,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	n8n.server = server;
	let sinceStart = ''; // this start's output only: after a restart the log already holds the first banner
	const collect = (b: Buffer) => {
		n8n.log.push(b.toString());
		if (n8n.log.length > 2000) n8n.log.splice(0, 1000);
		sinceStart = (sinceStart + b.toString()).slice(-20_000);
	};
	server.stdout!.on('data', collect);
	server.stderr!.on('data', collect);
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (server.exitCode !== null) throw new Error(`n8n exited early:\n${n8n.log.join('').slice(-3000)}`);
		if (sinceStart.includes('Editor is now accessible')) return;
		await new Promise((r) => setTimeout(r, 500));
	}
	throw new Error(`n8n did not start within ${timeoutMs / 1000} s:\n${n8n.log.join('').slice(-3000)}`);
}

export async function stopServer(n8n: N8nInstance): Promise<void> {
	const server = n8n.server;
	if (!server || server.exitCode !== null) return;
	server.kill('SIGTERM');
	await new Promise<void>((resolve) => {
		const t = setTimeout(() => {
			server.kill('SIGKILL');
			resolve();
		}, 15_000);
		server.on('exit', () => {
			clearTimeout(t);
			resolve();
		});
	});
}

/** Stops the server and starts it again on the same user folder, database and port: a restart of n8n. */
export async function restartServer(n8n: N8nInstance): Promise<void> {
	await stopServer(n8n);
	await startServer(n8n);
}

/** Creates the owner account (first run) and returns a session cookie for the REST API. */
export async function ownerSession(n8n: N8nInstance): Promise<string> {
	const base = `http://127.0.0.1:${n8n.port}`;
	const setup = await fetch(`${base}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	let cookie = setup.headers.get('set-cookie') ?? '';
	if (!cookie.includes('n8n-auth')) {
		const login = await fetch(`${base}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
		});
		cookie = login.headers.get('set-cookie') ?? '';
		if (!login.ok) throw new Error(`Could not log in to n8n: HTTP ${login.status} ${await login.text()}`);
	}
	return cookie.split(';')[0];
}

export async function rest<T>(n8n: N8nInstance, cookie: string, p: string, init: RequestInit = {}): Promise<T> {
	const res = await fetch(`http://127.0.0.1:${n8n.port}${p}`, {
		...init,
		headers: { cookie, 'content-type': 'application/json', ...(init.headers ?? {}) },
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`n8n ${p}: HTTP ${res.status} ${text.slice(0, 500)}`);
	return JSON.parse(text) as T;
}

export function readExample(name: string): Record<string, unknown> {
	return JSON.parse(readFileSync(path.join(REPO, 'examples', name), 'utf8')) as Record<string, unknown>;
}
