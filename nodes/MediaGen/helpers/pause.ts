// Pause mode, before the pause: checks that the service can call this execution back, uploads every
// item's files (free), submits the first run for each slot with the execution's resume URL as its
// webhook URL, records the batch in the node's context data and lets go of the execution. The rest
// happens in the resume webhook (resume/resumeRuns.ts), one delivery at a time.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import { describeWebhookCredentialProblem } from '../../../credentials/shapes';
import type { Identity } from '../transport';
import { uploadFile } from './binary';
import { concurrencyOf } from './batch';
import { withPaidRuns } from './paidRuns';
import { itemWebhookUrl, PAUSE_STATE_KEY, type PausedItem, type PauseState } from './pauseState';
import type { FileSource, PreparedRun } from './runBatch';
import { submitRun } from './submission';
import { timeLimitMs } from './waitForRun';

const PRIVATE_HOST =
	/^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+)$/i;

function isPrivateHost(host: string): boolean {
	return PRIVATE_HOST.test(host) || host.endsWith('.local') || host.endsWith('.internal');
}

/**
 * Why the service could not call this resume URL, if it could not: it must be https on a public host.
 * A service on this machine (a local sandbox) can reach this machine, so loopback is fine for it.
 */
export function resumeUrlProblem(resumeUrl: string, baseUrl: string): string | undefined {
	let resume: URL;
	let base: URL;
	try {
		resume = new URL(resumeUrl);
		base = new URL(baseUrl);
	} catch {
		return `this execution has no usable resume URL ("${resumeUrl.split('?')[0]}")`;
	}
	const shown = `${resume.origin}${resume.pathname}`;
	const localService = isPrivateHost(base.hostname) && base.hostname === resume.hostname;
	if (localService) return undefined;
	if (resume.protocol !== 'https:') return `this execution's resume URL (${shown}) is not https`;
	if (isPrivateHost(resume.hostname)) return `this execution's resume URL (${shown}) is on a private or local host`;
	return undefined;
}

function pauseRefusal(ctx: IExecuteFunctions, reason: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Waiting → Pause cannot be used here: ${reason}`, {
		description:
			"The service calls n8n back at the execution's resume URL, which n8n builds from its WEBHOOK_URL setting. " +
			"Set WEBHOOK_URL to n8n's public https address (for example https://n8n.example.com/) and restart n8n, " +
			'or choose Waiting → Poll, which needs no address. Nothing was submitted and nothing was charged.',
	});
}

async function addressOf(ctx: IExecuteFunctions, identity: Identity, source: FileSource, item: number) {
	return 'url' in source ? source.url : (await uploadFile(ctx, identity, source.file, item, source.field)).url;
}

/** Uploads an item's files so that its request is complete without the input item. */
async function completeBody(ctx: IExecuteFunctions, identity: Identity, p: PreparedRun): Promise<IDataObject> {
	const body = { ...p.body };
	const images: string[] = [];
	for (const source of p.images) images.push(await addressOf(ctx, identity, source, p.itemIndex));
	if (images.length) body.imageUrls = images;
	if (p.endFrame) body.endImageUrl = await addressOf(ctx, identity, p.endFrame, p.itemIndex);
	if (p.audio) body.audioUrl = await addressOf(ctx, identity, p.audio, p.itemIndex);
	return body;
}

function refusal(error: unknown): PausedItem['refused'] {
	const e = error as { message?: string; description?: string | null };
	return { message: String(e?.message ?? error), ...(e?.description ? { description: e.description } : {}) };
}

export async function pauseRuns(
	ctx: IExecuteFunctions,
	identity: Identity,
	ready: PreparedRun[],
	invalid: Array<{ itemIndex: number; error: Error }>,
	affordable: (position: number) => string | undefined,
): Promise<INodeExecutionData[]> {
	const continueOnFail = ctx.continueOnFail();
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const urlProblem = resumeUrlProblem(resumeUrl, identity.baseUrl);
	if (urlProblem) throw pauseRefusal(ctx, urlProblem);
	const secretProblem = describeWebhookCredentialProblem(
		await ctx.getCredentials('mediaGenWebhookApi').catch(() => ({})),
	);
	if (secretProblem) {
		throw new NodeOperationError(ctx.getNode(), `Waiting → Pause needs the webhook signing secret: ${secretProblem}`, {
			description:
				'Select a Media Generation Webhook Signing Secret credential on this node (the endpoint secret of your ' +
				'account): the node checks with it that each call really comes from the service. Nothing was charged.',
		});
	}
	const items: PausedItem[] = [];
	for (const [position, p] of ready.entries()) {
		const body = await completeBody(ctx, identity, p);
		body.webhookUrl = itemWebhookUrl(resumeUrl, position);
		const overCap = affordable(position);
		items.push({
			item: p.itemIndex,
			body,
			download: p.settings.download,
			binaryProperty: p.settings.binaryProperty,
			...(p.extraJson ? { extraJson: p.extraJson } : {}),
			...(overCap ? { refused: { message: overCap } } : {}),
		});
	}
	const lanes = Math.max(1, await concurrencyOf(ctx, identity, items.length));
	const state: PauseState = {
		version: 1,
		lanes,
		deadline: Date.now() + Math.max(...ready.map((p) => timeLimitMs(String(p.body.kind), p.settings.timeoutMs))),
		pausedAt: Date.now(),
		continueOnFail,
		items,
		invalid: invalid.map(({ itemIndex, error }) => ({ item: itemIndex, ...refusal(error)! })),
	};
	// The first runs go out now, in input order, one per slot; a refused one hands its slot to the next item.
	const claimed = new Set<string>();
	let inFlight = 0;
	for (const [position, entry] of items.entries()) {
		if (inFlight === lanes) break;
		if (entry.refused) continue;
		const settings = ready[position].settings;
		try {
			const run = await submitRun({ ctx, identity, settings, itemIndex: entry.item, claimed }, entry.body);
			entry.runId = run.id;
			inFlight++;
		} catch (error) {
			if (!continueOnFail) throw withStartedRuns(error, items);
			entry.refused = refusal(error);
		}
	}
	ctx.getContext('node')[PAUSE_STATE_KEY] = state;
	await ctx.putExecutionToWait(WAIT_INDEFINITELY);
	return ctx.getInputData();
}

/** A refusal before pausing stops the batch; runs already started keep going, are charged and are named. */
function withStartedRuns<E>(error: E, items: PausedItem[]): E {
	const started = items.flatMap((i) => (i.runId ? [{ id: i.runId, itemIndex: i.item }] : []));
	return withPaidRuns(error, started);
}
