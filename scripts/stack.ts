// The sandbox plus real n8n with our package, credentials and the example workflows imported:
// shared by `npm run demo`, `npm run dev` and the end-to-end tests.
import { startSandbox, type Sandbox } from '../sandbox/server';
import type { SandboxConfig } from '../sandbox/config';
import {
	importCredentials,
	importWorkflows,
	localiseWorkflow,
	prepareN8n,
	readExample,
	type N8nInstance,
} from './realN8n';

export const EXAMPLES = [
	'01-generate-image.json',
	'02-batch-of-prompts.json',
	'03-image-to-video.json',
	'04-song-lyrics.json',
	'05-app-look.json',
	'06-trigger-finished-runs.json',
];
export const exampleId = (n: number) => `mgExample000000${n}`;

export interface Stack {
	sandbox: Sandbox;
	n8n: N8nInstance;
	apiKey: string;
	accountId: string;
	webhookSecret: string;
	/** The trigger example's production webhook URL. */
	hookUrl: string;
}

export interface StackOptions {
	sandbox?: Partial<SandboxConfig>;
	n8nPort?: number;
	userFolder?: string;
	/** n8n version (default: MEDIAGEN_N8N_VERSION or the main version of scripts/n8n-versions.env). */
	version?: string;
	/** A tarball from `npm pack` (default: packed on first use). */
	tarball?: string;
}

export async function bootStack(options: StackOptions = {}): Promise<Stack> {
	const sandbox = await startSandbox({
		durations: { pendingMs: 200, image: 1500, video: 2500, music: 2000 },
		...options.sandbox,
	});
	const account = sandbox.engine.createAccount({ credits: 5000, concurrency: 3 });
	// One secret for every way a delivery reaches n8n here: the service signs a run's own Webhook URL (pause
	// mode, or a trigger URL typed into a Generate step) with the account's secret, and the trigger's
	// registered endpoint is given that same secret, so the one credential works for each set-up the
	// trigger's notice describes.
	const webhookSecret = account.webhookSecret;
	const n8n = await prepareN8n({
		port: options.n8nPort,
		userFolder: options.userFolder,
		version: options.version,
		tarball: options.tarball,
	});
	// The API key last: the editor gives a new node (and the AI tool) the newest credential that fits it, and
	// with the free-tier one created last it picked that one and switched Authentication to Anonymous.
	await importCredentials(n8n, [
		{
			id: 'mediagenSandboxAnon',
			name: 'Media Generation sandbox (free tier)',
			type: 'mediaGenAnonymousApi',
			data: { baseUrl: sandbox.baseUrl, secretAnonymousId: `n8n-demo-${Date.now().toString(36)}` },
		},
		{
			id: 'mediagenSandboxWebhook',
			name: 'Media Generation sandbox webhook',
			type: 'mediaGenWebhookApi',
			data: { secret: webhookSecret, previousSecret: '' },
		},
		{
			id: 'mediagenSandboxKey',
			name: 'Media Generation sandbox',
			type: 'mediaGenApi',
			data: { baseUrl: sandbox.baseUrl, apiKey: account.keys[0] },
		},
	]);
	await importWorkflows(
		n8n,
		EXAMPLES.map((name, i) => localiseWorkflow(readExample(name), sandbox.rootUrl, n8n.outputDir, exampleId(i + 1))),
	);
	const trigger = (readExample(EXAMPLES[5]).nodes as Array<{ webhookId?: string }>)[0];
	const hookUrl = `http://127.0.0.1:${n8n.port}/webhook/${trigger.webhookId}/webhook`;
	sandbox.engine.addEndpoint(account.id, hookUrl, webhookSecret);
	return { sandbox, n8n, apiKey: account.keys[0], accountId: account.id, webhookSecret, hookUrl };
}
