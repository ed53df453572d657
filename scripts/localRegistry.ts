/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A local npm registry for the install tests: Verdaccio on 127.0.0.1, its storage and users in a temp folder,
// no uplink (it serves only what the test publishes). Verdaccio is installed from npm once into a cache folder
// beside the n8n installs, not as a devDependency: it needs Node 22 or later, and one of its dependencies
// asks for `node-fetch@cjs`, a tag the registry here lacks, which only an `overrides` entry fixes, and n8n's
// rules refuse `overrides` in a community package's package.json. Packages reach it with the
// publish workflow's own `npm publish` (minus provenance).
//
// n8n without an enterprise licence installs community packages only from https://registry.npmjs.org
// (N8N_COMMUNITY_PACKAGES_REGISTRY is licence-gated: getNpmRegistry() in community-packages.service.ts,
// 1.123.81 and 2.41.1), so an n8n process is pointed at this registry the way a network would do it:
// `registryEnv` makes registry.npmjs.org resolve to 127.0.0.1 in that process and in the npm it runs
// (a --require preload that answers dns.lookup for that one name), where a TLS front on 127.0.0.1:443,
// with a certificate for registry.npmjs.org from a CA made for the test (NODE_EXTRA_CA_CERTS), passes
// every request on to Verdaccio. Port 443 needs root, as CI has.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

import { ensureN8n, freePort, N8N_MAIN_VERSION, nodeBinOf } from './realN8n';

const VERDACCIO_VERSION = '6.10.4';

/** The host n8n installs community packages from when it has no licence for another registry. */
export const PUBLIC_REGISTRY_HOST = 'registry.npmjs.org';

export interface LocalRegistry {
	/** Verdaccio's own address (http://127.0.0.1:<port>/), where the tests publish. */
	url: string;
	/** The temp folder: storage, config, users, certificates, npm cache. */
	dir: string;
	/** `npm publish` of a package folder, as the publish workflow runs it, minus provenance. */
	publish(packageDir: string): void;
	/** Versions of `name` the registry serves, and its `latest` tag. */
	versions(name: string): Promise<{ versions: string[]; latest?: string }>;
	/** Environment that makes an n8n process (and the npm it runs) reach this registry as registry.npmjs.org. */
	registryEnv(): NodeJS.ProcessEnv;
	stop(): Promise<void>;
}

const PRELOAD = `// Resolves the names in MEDIAGEN_LOOPBACK_HOSTS to 127.0.0.1 in this process (and children that inherit it).
const dns = require('dns');
const hosts = new Set((process.env.MEDIAGEN_LOOPBACK_HOSTS || '').split(',').filter(Boolean));
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
	if (!hosts.has(hostname)) return lookup.apply(this, arguments);
	if (typeof options === 'function') (callback = options), (options = {});
	if (typeof options === 'number') options = { family: options };
	process.nextTick(() =>
		options && options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4),
	);
};
const promiseLookup = dns.promises.lookup;
dns.promises.lookup = async function (hostname, options) {
	if (!hosts.has(hostname)) return promiseLookup.call(dns.promises, hostname, options);
	const answer = { address: '127.0.0.1', family: 4 };
	return options && options.all ? [answer] : answer;
};
`;

/** A CA and a certificate for registry.npmjs.org signed by it (openssl). */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
	const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
	ssl(
		'req',
		'-x509',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-days',
		'2',
		'-subj',
		'/CN=mediagen test CA',
		'-keyout',
		'ca.key',
		'-out',
		'ca.pem',
	);
	ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'host.key', '-out', 'host.csr', '-subj', '/CN=registry');
	writeFileSync(path.join(dir, 'host.ext'), `subjectAltName=DNS:${PUBLIC_REGISTRY_HOST}\n`);
	ssl(
		'x509',
		'-req',
		'-in',
		'host.csr',
		'-CA',
		'ca.pem',
		'-CAkey',
		'ca.key',
		'-CAcreateserial',
		'-days',
		'2',
		'-extfile',
		'host.ext',
		'-out',
		'host.pem',
	);
	// One bundle for Node (NODE_EXTRA_CA_CERTS) and npm (its `cafile`, which a machine's npmrc may already set):
	// the machine's CAs, so other hosts keep working, plus the test CA.
	const system = ['/etc/ssl/certs/ca-certificates.crt']
		.filter((f) => existsSync(f))
		.map((f) => readFileSync(f, 'utf8'));
	writeFileSync(
		path.join(dir, 'ca-bundle.pem'),
		[...system, readFileSync(path.join(dir, 'ca.pem'), 'utf8')].join('\n'),
	);
	return {
		ca: path.join(dir, 'ca-bundle.pem'),
		key: readFileSync(path.join(dir, 'host.key'), 'utf8'),
		cert: readFileSync(path.join(dir, 'host.pem'), 'utf8'),
	};
}

function verdaccioConfig(dir: string): string {
	return [
		`storage: ${path.join(dir, 'storage')}`,
		'auth:',
		'  htpasswd:',
		`    file: ${path.join(dir, 'htpasswd')}`,
		'    max_users: 10',
		'uplinks: {}',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		'server:',
		'  keepAliveTimeout: 60',
		'log: { type: stdout, format: pretty, level: warn }',
		'',
	].join('\n');
}

async function waitForPing(url: string, child: ChildProcess, log: () => string): Promise<void> {
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`Verdaccio exited with ${child.exitCode}:\n${log()}`);
		try {
			if ((await fetch(`${url}-/ping`)).ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((r) => setTimeout(r, 300));
	}
	throw new Error(`Verdaccio did not answer ${url}-/ping within 60 s:\n${log()}`);
}

/** Adds a user through the registry's own API (what `npm adduser` does) and returns its token. */
async function addUser(url: string): Promise<string> {
	const name = 'publisher';
	const res = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ name, password: 'local-registry-only', type: 'user', roles: [] }),
	});
	const body = (await res.json()) as { token?: string };
	if (!res.ok || !body.token) throw new Error(`Verdaccio refused the user: HTTP ${res.status} ${JSON.stringify(body)}`);
	return body.token;
}

/** The TLS front: https://registry.npmjs.org (127.0.0.1:443 for the processes given registryEnv) → Verdaccio. */
async function startFront(port: number, certs: { key: string; cert: string }): Promise<https.Server> {
	const server = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
		const upstream = http.request(
			{
				host: '127.0.0.1',
				port,
				path: req.url,
				method: req.method,
				headers: { ...req.headers, 'x-forwarded-proto': 'https', host: PUBLIC_REGISTRY_HOST },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', (error) => {
			res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`local registry front: ${error.message}`);
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', (error: NodeJS.ErrnoException) =>
			reject(
				new Error(
					`The local registry's TLS front cannot listen on 127.0.0.1:443 (${error.code}): it needs root and a ` +
						'free port 443 (is another install test running?)',
				),
			),
		);
		server.listen(443, '127.0.0.1', () => resolve());
	});
	return server;
}

/** Verdaccio's entry script, installed on first use into ~/.cache/n8n-nodes-mediagen/verdaccio-<version>. */
export function ensureVerdaccio(nodeBin: string): string {
	const dir = path.join(os.homedir(), '.cache/n8n-nodes-mediagen', `verdaccio-${VERDACCIO_VERSION}`);
	const bin = path.join(dir, 'node_modules/verdaccio/bin/verdaccio');
	if (existsSync(path.join(dir, '.ready'))) return bin;
	// Installed beside its final place and moved there whole: a half-finished install is never used.
	const staging = `${dir}.installing-${process.pid}`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	const manifest = {
		name: 'verdaccio-runtime',
		private: true,
		dependencies: { verdaccio: VERDACCIO_VERSION },
		// verdaccio-audit asks for node-fetch's `cjs` tag; 2.7.0 is the CommonJS release that tag names
		overrides: { 'verdaccio-audit': { 'node-fetch': '2.7.0' } },
	};
	writeFileSync(path.join(staging, 'package.json'), JSON.stringify(manifest, null, 2));
	execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
		cwd: staging,
		stdio: ['ignore', 'ignore', 'inherit'],
		env: { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` },
	});
	writeFileSync(path.join(staging, '.ready'), '');
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
	return bin;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mediagen-registry-'));
	mkdirSync(path.join(dir, 'storage'));
	const certs = makeCertificates(dir);
	writeFileSync(path.join(dir, 'config.yaml'), verdaccioConfig(dir));
	const preload = path.join(dir, 'loopback-hosts.cjs');
	writeFileSync(preload, PRELOAD);
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	let output = '';
	// Verdaccio 6 needs Node 22 or later: it runs on the Node of the main n8n install (Node 24).
	const nodeBin = nodeBinOf(ensureN8n(N8N_MAIN_VERSION));
	const verdaccio = ensureVerdaccio(nodeBin);
	const child = spawn(
		path.join(nodeBin, 'node'),
		[verdaccio, '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
		{ cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VERDACCIO_PUBLIC_URL: '' } },
	);
	child.stdout!.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
	child.stderr!.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
	let front: https.Server | undefined;
	const stop = async () => {
		await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
		front?.closeAllConnections();
		if (child.exitCode === null) {
			const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			child.kill('SIGTERM');
			await exited;
		}
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitForPing(url, child, () => output);
		const token = await addUser(url);
		const npmrc = path.join(dir, 'publisher.npmrc');
		writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
		front = await startFront(port, certs);
		const cache = path.join(dir, 'npm-cache');
		return {
			url,
			dir,
			publish(packageDir: string) {
				try {
					execFileSync('npm', ['publish'], {
						cwd: packageDir,
						stdio: ['ignore', 'pipe', 'pipe'],
						// publish.yml runs `npm run release`, which in CI is `npm publish` with these two set
						env: {
							...process.env,
							RELEASE_MODE: 'true',
							NPM_CONFIG_PROVENANCE: 'false',
							NPM_CONFIG_USERCONFIG: npmrc,
							NPM_CONFIG_REGISTRY: url,
							NPM_CONFIG_CACHE: cache,
						},
					});
				} catch (error) {
					const e = error as { stdout?: Buffer; stderr?: Buffer };
					throw new Error(`npm publish in ${packageDir} failed:\n${String(e.stdout)}\n${String(e.stderr)}`);
				}
			},
			async versions(name: string) {
				const res = await fetch(`${url}${encodeURIComponent(name)}`);
				if (res.status === 404) return { versions: [] };
				const body = (await res.json()) as { versions: Record<string, unknown>; 'dist-tags': { latest?: string } };
				return { versions: Object.keys(body.versions), latest: body['dist-tags'].latest };
			},
			registryEnv() {
				return {
					NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
					MEDIAGEN_LOOPBACK_HOSTS: PUBLIC_REGISTRY_HOST,
					NODE_EXTRA_CA_CERTS: certs.ca,
					NPM_CONFIG_CAFILE: certs.ca,
					// npm's cache of another registry's answers under the same host name stays apart
					NPM_CONFIG_CACHE: path.join(dir, 'n8n-npm-cache'),
					NPM_CONFIG_REGISTRY: `https://${PUBLIC_REGISTRY_HOST}/`,
				};
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
