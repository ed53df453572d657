/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the install tests share: the local registry with both releases published, the sandbox, real n8n
// started on an empty user folder with its registry traffic sent to the local registry, the editor in
// Debian's chromium, and the REST calls a person's clicks make (saving credentials and workflows).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { startLocalRegistry, type LocalRegistry } from '../../scripts/localRegistry';
import {
	freePort,
	localiseWorkflow,
	OWNER,
	ownerSession,
	prepareN8n,
	readExample,
	rest,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import { launchBrowser } from '../../scripts/uiBrowser';
import { currentRelease, PREVIOUS_VERSION, previousRelease } from './releases';

export interface InstallWorld {
	registry: LocalRegistry;
	sandbox: Sandbox;
	browser: BrowserContext;
	close(): Promise<void>;
}

/** The registry with the previous release and this build published (in that order: `latest` is this build). */
export async function startInstallWorld(): Promise<InstallWorld> {
	const registry = await startLocalRegistry();
	for (const release of [previousRelease, currentRelease]) {
		const dir = release();
		try {
			registry.publish(dir);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}
	const sandbox = await startSandbox({ durations: { pendingMs: 200, image: 1500, video: 2500, music: 2000 } });
	const browser = await launchBrowser();
	const close = async () => {
		await browser.close();
		await sandbox.close();
		await registry.stop();
	};
	return {
		registry,
		sandbox,
		browser,
		close,
	};
}

/** Registers the file's beforeAll/afterAll for one world; the getter returns it inside tests. */
export function useInstallWorld(): () => InstallWorld {
	let world: InstallWorld | undefined;
	beforeAll(async () => {
		world = await startInstallWorld();
	}, 10 * 60_000);
	afterAll(async () => {
		await world?.close();
	});
	return () => world!;
}

export interface InstalledN8n {
	n8n: N8nInstance;
	cookie: string;
	base: string;
	stop(): Promise<void>;
}

/** Real n8n `version` on an empty user folder (no package laid out), its registry traffic sent to `world`'s. */
export async function startEmptyN8n(
	world: InstallWorld,
	version: string,
	extraEnv: NodeJS.ProcessEnv = {},
): Promise<InstalledN8n> {
	const n8n = await prepareN8n({ version, withPackage: false, port: await freePort() });
	n8n.env = { ...n8n.env, ...world.registry.registryEnv(), ...extraEnv };
	// n8n 1.x looks for updates (`npm outdated` in its nodes folder) with an environment of PATH and NODE_PATH
	// only: there npm's own configuration in that folder names the registry, as a self-hoster's would.
	const nodesDir = path.join(n8n.userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(path.join(nodesDir, '.npmrc'), `registry=${world.registry.url}\n`);
	try {
		await startServer(n8n);
	} catch (error) {
		await stopServer(n8n);
		rmSync(n8n.userFolder, { recursive: true, force: true });
		throw error;
	}
	const cookie = await ownerSession(n8n);
	const stop = async () => {
		await stopServer(n8n);
		rmSync(n8n.userFolder, { recursive: true, force: true });
	};
	return { n8n, cookie, base: `http://127.0.0.1:${n8n.port}`, stop };
}

export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	updateAvailable?: string;
	installedNodes: Array<{ name: string; type: string }>;
}

export async function installedPackages(at: InstalledN8n): Promise<InstalledPackage[]> {
	return (await rest<{ data: InstalledPackage[] }>(at.n8n, at.cookie, '/rest/community-packages')).data;
}

/** The node types the server offers (what the nodes panel lists). */
export async function nodeTypeNames(at: InstalledN8n): Promise<string[]> {
	const res = await fetch(`${at.base}/types/nodes.json`, { headers: { cookie: at.cookie } });
	return ((await res.json()) as Array<{ name: string }>).map((t) => t.name);
}

/** A page signed in as the owner. */
export async function ownerPage(world: InstallWorld, at: InstalledN8n): Promise<Page> {
	const page = await world.browser.newPage();
	page.setDefaultTimeout(60_000);
	page.on('dialog', (d) => void d.accept().catch(() => undefined));
	await page.goto(`${at.base}/signin`);
	await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(OWNER.email);
	await page.locator('[data-test-id="password"] input').fill(OWNER.password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL(/\/(home|workflows)/, { timeout: 60_000 });
	return page;
}

export interface SavedSetup {
	/** The sandbox account of this setup's API key: its own runs, request keys and ledger lines. */
	accountId: string;
	credentialIds: Record<'apiKey' | 'anonymous' | 'webhook', string>;
	workflowIds: Record<string, string>;
}

/** Credentials of all three kinds and the example workflows, saved through the REST API the editor uses. */
export async function saveCredentialsAndExamples(
	world: InstallWorld,
	at: InstalledN8n,
	examples: string[],
): Promise<SavedSetup> {
	const save = async (name: string, type: string, data: Record<string, string>) =>
		(
			await rest<{ data: { id: string } }>(at.n8n, at.cookie, '/rest/credentials', {
				method: 'POST',
				body: JSON.stringify({ name, type, data }),
			})
		).data.id;
	// An account of its own: runs of another test (another n8n, whose execution ids start at 1 too) must not
	// answer this one's request keys.
	const account = world.sandbox.engine.createAccount({ credits: 5000, concurrency: 3 });
	const credentialIds = {
		apiKey: await save('Media Generation sandbox', 'mediaGenApi', {
			baseUrl: world.sandbox.baseUrl,
			apiKey: account.keys[0],
		}),
		anonymous: await save('Media Generation sandbox (free tier)', 'mediaGenAnonymousApi', {
			baseUrl: world.sandbox.baseUrl,
			secretAnonymousId: `n8n-upgrade-${Date.now().toString(36)}`,
		}),
		webhook: await save('Media Generation sandbox webhook', 'mediaGenWebhookApi', {
			secret: account.webhookSecret,
			previousSecret: '',
		}),
	};
	const exampleCredentialIds: Record<string, string> = {
		mediagenSandboxKey: credentialIds.apiKey,
		mediagenSandboxAnon: credentialIds.anonymous,
		mediagenSandboxWebhook: credentialIds.webhook,
	};
	const workflowIds: Record<string, string> = {};
	for (const name of examples) {
		let text = JSON.stringify(localiseWorkflow(readExample(name), world.sandbox.rootUrl, at.n8n.outputDir, 'x'));
		for (const [from, to] of Object.entries(exampleCredentialIds)) text = text.split(`"${from}"`).join(`"${to}"`);
		const { nodes, connections, settings, name: title } = JSON.parse(text) as Record<string, unknown>;
		const saved = await rest<{ data: { id: string } }>(at.n8n, at.cookie, '/rest/workflows', {
			method: 'POST',
			body: JSON.stringify({ name: title, nodes, connections, settings: settings ?? {}, active: false }),
		});
		workflowIds[name] = saved.data.id;
	}
	return { accountId: account.id, credentialIds, workflowIds };
}

/** n8n's own credential test (the editor's "Retry"/"Test" button): true when GET /me answered. */
export async function credentialWorks(at: InstalledN8n, id: string): Promise<{ status: string; message?: string }> {
	const { data: stored } = await rest<{ data: { id: string; name: string; type: string; data: object } }>(
		at.n8n,
		at.cookie,
		`/rest/credentials/${id}?includeData=true`,
	);
	const { data } = await rest<{ data: { status: string; message?: string } }>(
		at.n8n,
		at.cookie,
		'/rest/credentials/test',
		{ method: 'POST', body: JSON.stringify({ credentials: stored }) },
	);
	return data;
}

export { PREVIOUS_VERSION };
