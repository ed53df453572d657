// Shared set-up of the real-n8n pause-mode files: one sandbox, one n8n with published batch workflows
// (Webhook → Split Out → Generate with Waiting → Pause), and read-outs of n8n's executions and the
// sandbox's ledger.
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { SandboxConfig } from '../../sandbox/config';
import type { Account } from '../../sandbox/types';
import { CUSTOM_PREFIX, ownerSession, rest, startServer, stopServer, type N8nInstance } from '../../scripts/realN8n';
import { spentBy } from '../helpers/ledger';
import { parseFlatted, startN8nWith, untilN8n, type Credential } from './shared';

/** The Generate node's name in every batch workflow. */
export const GENERATE = 'Generate';

export type Execution = { id: string; status: string; waitTill?: string | null };
export type ItemData = { json: Record<string, unknown>; binary?: Record<string, { mimeType: string }> };

/** One published batch workflow: its webhook path, the account whose key it uses, what it generates. */
export interface BatchSpec {
	id: string;
	account: Account;
	kind?: 'video' | 'image';
	/** A signing secret other than the account's (deliveries then fail the signature check). */
	wrongSecret?: boolean;
	/** Extra Generate parameters (for example a time limit). */
	extra?: Record<string, unknown>;
	/** Generate's On Error setting; with `next`, a No Op step after each of its outputs ("Next", "On Error"). */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	next?: boolean;
}

export interface PauseStack {
	sb: Sandbox;
	n8n: N8nInstance;
	cookie: string;
	hookPaths: Record<string, string>;
}

// Credential ids of an account (letters and digits only, as n8n's own ids).
export const keyCredential = (a: Account) => `mgKey${a.id.replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 16);
export const secretCredential = (a: Account) => `mgSec${a.id.replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 16);

const MODELS = { video: 'studio-video-v1', image: 'studio-image-v1' };

export function node(name: string, type: string, typeVersion: number, x: number, parameters: object, extra = {}) {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters, ...extra };
}

/** The steps after Generate: "Next" on its output, and "On Error" on its error output when it has one. */
function nextSteps(spec: BatchSpec) {
	const names = spec.onError === 'continueErrorOutput' ? ['Next', 'On Error'] : ['Next'];
	return names.map((name, i) => node(name, 'n8n-nodes-base.noOp', 1, 660, {}, { position: [660, i * 200] }));
}

function batchWorkflow(spec: BatchSpec, hookPath: string) {
	const kind = spec.kind ?? 'video';
	const secret = spec.wrongSecret ? 'mgWrongSecret' : secretCredential(spec.account);
	return {
		id: spec.id,
		name: `Pause a batch (${spec.id})`,
		nodes: [
			node(
				'Start',
				'n8n-nodes-base.webhook',
				2,
				0,
				{ httpMethod: 'POST', path: hookPath, responseMode: 'onReceived' },
				{ webhookId: randomUUID() },
			),
			node('Split Prompts', 'n8n-nodes-base.splitOut', 1, 220, { fieldToSplitOut: 'body.items' }),
			node(
				GENERATE,
				`${CUSTOM_PREFIX}mediaGen`,
				1,
				440,
				{
					resource: 'generation',
					operation: 'generate',
					kind,
					model: { __rl: true, mode: 'id', value: MODELS[kind] },
					prompt: '={{ $json.prompt }}',
					waitMode: 'pause',
					...spec.extra,
				},
				{
					credentials: {
						mediaGenApi: { id: keyCredential(spec.account), name: 'Sandbox key' },
						mediaGenWebhookApi: { id: secret, name: 'Signing secret' },
					},
					...(spec.onError ? { onError: spec.onError } : {}),
				},
			),
			...(spec.next ? nextSteps(spec) : []),
		],
		connections: {
			Start: { main: [[{ node: 'Split Prompts', type: 'main', index: 0 }]] },
			'Split Prompts': { main: [[{ node: GENERATE, type: 'main', index: 0 }]] },
			...(spec.next
				? { [GENERATE]: { main: nextSteps(spec).map((n) => [{ node: n.name, type: 'main', index: 0 }]) } }
				: {}),
		},
		settings: { saveDataSuccessExecution: 'all', saveManualExecutions: true },
	};
}

/**
 * Starts the sandbox (time-scaled: the service retries a failed delivery after 0.6 s, 3 s, 18 s, 72 s … instead of
 * minutes), lets `accounts` create its accounts, and publishes `batches` in one n8n.
 */
export async function startPauseStack(
	accounts: (sb: Sandbox) => Account[],
	batches: (accounts: Account[]) => BatchSpec[],
	options: {
		sandbox?: Partial<SandboxConfig>;
		/** Imports more workflows before n8n starts (the stack's credentials are imported by then). */
		beforeStart?: (n8n: N8nInstance, sb: Sandbox, accounts: Account[]) => Promise<void>;
	} = {},
): Promise<PauseStack> {
	const sb = await startSandbox({
		timeScale: 0.01,
		durations: { pendingMs: 300, image: 1500, video: 6000, music: 2000 },
		...options.sandbox,
	});
	const made = accounts(sb);
	const credentials: Credential[] = [
		...made.flatMap((a): Credential[] => [
			{
				id: keyCredential(a),
				name: 'Sandbox key',
				type: 'mediaGenApi',
				data: { baseUrl: sb.baseUrl, apiKey: a.keys[0] },
			},
			{
				id: secretCredential(a),
				name: 'Sandbox signing secret',
				type: 'mediaGenWebhookApi',
				data: { secret: a.webhookSecret, previousSecret: '' },
			},
		]),
		{
			id: 'mgWrongSecret',
			name: 'Another signing secret',
			type: 'mediaGenWebhookApi',
			data: { secret: `whsec_${Buffer.alloc(32, 5).toString('base64')}`, previousSecret: '' },
		},
	];
	const hookPaths: Record<string, string> = {};
	const workflows = batches(made).map((spec) => {
		hookPaths[spec.id] = `mg-pause-${randomUUID().slice(0, 8)}`;
		return batchWorkflow(spec, hookPaths[spec.id]);
	});
	const { n8n, cookie } = await startN8nWith(credentials, workflows, async (n8n) => {
		await options.beforeStart?.(n8n, sb, made);
	});
	const stack: PauseStack = { sb, n8n, cookie, hookPaths };
	await untilWebhooksRegistered(stack);
	return stack;
}

/**
 * Waits until n8n serves every batch workflow's webhook: n8n 2.41 registers them a moment after it starts answering
 * (a POST right after a start got 404). A GET to a POST webhook says "not registered for GET requests" once it is there.
 */
async function untilWebhooksRegistered(stack: PauseStack): Promise<void> {
	for (const hookPath of Object.values(stack.hookPaths)) {
		await untilN8n(async () => {
			const res = await fetch(`http://127.0.0.1:${stack.n8n.port}/webhook/${hookPath}`, { method: 'GET' });
			return /registered for GET/i.test(await res.text()) ? true : undefined;
		}, 'the webhook to be registered');
	}
}

export async function stopPauseStack(stack: PauseStack | undefined): Promise<void> {
	if (stack?.n8n) await stopServer(stack.n8n);
	if (stack?.sb) await stack.sb.close();
}

/** Stops n8n and starts it again with a new owner session, once its webhooks are registered again. */
export async function restartN8n(stack: PauseStack, whileDown: () => Promise<void>): Promise<void> {
	await stopServer(stack.n8n);
	await whileDown();
	await startServer(stack.n8n);
	stack.cookie = await ownerSession(stack.n8n);
	await untilWebhooksRegistered(stack);
}

export async function executions(stack: PauseStack, workflowId: string): Promise<Execution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const path = `/rest/executions?filter=${filter}&limit=50`;
	return (await rest<{ data: { results: Execution[] } }>(stack.n8n, stack.cookie, path)).data.results;
}

/** A stored execution: its status, wait time and run data (n8n stores run data with flatted). */
export async function execution(stack: PauseStack, id: string) {
	const res = await rest<{ data: { status: string; waitTill?: string | null; data: string } }>(
		stack.n8n,
		stack.cookie,
		`/rest/executions/${id}`,
	);
	const data = parseFlatted(res.data.data) as {
		resultData?: { runData?: Record<string, Array<{ data?: { main: ItemData[][] } }>> };
	};
	return {
		status: res.data.status,
		waitTill: res.data.waitTill,
		raw: res.data.data,
		runData: data.resultData?.runData,
	};
}

/** The output items of the Generate node in a stored execution. */
export async function generateOutput(stack: PauseStack, id: string): Promise<ItemData[]> {
	const runData = (await execution(stack, id)).runData ?? {};
	const runs = runData[GENERATE] ?? [];
	const items = runs[runs.length - 1]?.data?.main[0] ?? [];
	// Says what was stored when it is not the items (a CI run once saw none after a restart).
	if (!items.length) {
		const shape = Object.entries(runData).map(([name, r]) => ({
			name,
			runs: r.map((x) => x.data?.main.map((m) => m?.length ?? null) ?? null),
		}));
		throw new Error(`execution ${id}: no items from ${GENERATE}; stored runs: ${JSON.stringify(shape)}`);
	}
	return items;
}

/** Whether n8n has stored the Generate step's run of a waiting execution. */
export async function storedRuns(stack: PauseStack, id: string): Promise<boolean> {
	return ((await execution(stack, id)).runData?.[GENERATE]?.length ?? 0) > 0;
}

/** Starts the batch workflow `workflowId` with one item per prompt. */
export async function startBatch(stack: PauseStack, workflowId: string, prompts: string[]): Promise<void> {
	const res = await fetch(`http://127.0.0.1:${stack.n8n.port}/webhook/${stack.hookPaths[workflowId]}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ items: prompts.map((prompt) => ({ prompt })) }),
	});
	expect(res.status).toBe(200);
	await res.text();
}

const ended = (e: Execution | undefined) => (e && !['waiting', 'running', 'new'].includes(e.status) ? e : undefined);

/** The first execution of `workflowId` not in `known` that has ended. */
export async function nextEnded(stack: PauseStack, workflowId: string, known: Set<string>, ms?: number) {
	return untilN8n(
		async () => ended((await executions(stack, workflowId)).find((e) => !known.has(e.id))),
		`an execution of ${workflowId} to end`,
		ms,
	);
}

/** Execution `id` once it has ended. */
export async function endOf(stack: PauseStack, workflowId: string, id: string, ms?: number) {
	return untilN8n(
		async () => ended((await executions(stack, workflowId)).find((e) => e.id === id)),
		`execution ${id} to end`,
		ms,
	);
}

export async function knownIds(stack: PauseStack, workflowId: string): Promise<Set<string>> {
	return new Set((await executions(stack, workflowId)).map((e) => e.id));
}

/** Net credits an account has spent (charges minus refunds). */
export const charged = (sb: Sandbox, account: Account) => spentBy(sb, account.id);

/** The runs made for these prompts (every test of a suite has prompts of its own), oldest first. */
export const runsWithPrompts = (sb: Sandbox, prompts: string[]) =>
	[...sb.engine.runs.values()].filter((r) => prompts.includes(r.prompt));

export const generationPosts = (sb: Sandbox) =>
	sb.engine.log.filter((e) => e.method === 'POST' && e.path === '/v1/generations').length;
