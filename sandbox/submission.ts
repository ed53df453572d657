// The steps of POST /generations that need no engine state: who may use the model, every check of the
// request, the operator's switches, moderation, free runs, concurrency and credits, and the new run record.
import { createHash } from 'node:crypto';

import { ApiFailure } from './apiFailure';
import { MINUTE, type SandboxConfig } from './config';
import { checkInputFiles } from './inputFiles';
import { MODERATION_WORD } from './markers';
import type { Caller, Kind, Model, Options, Run, Upload } from './types';
import { checkAgainstModel, checkWebhookUrl, type GenerationRequest } from './validate';

const STUCK_AFTER_MS = 30 * MINUTE;

/** Finds a received upload by its file URL. */
export type UploadLookup = (url: string) => Upload | undefined;

export function today(): string {
	return new Date().toISOString().slice(0, 10);
}

/** The model asked for, if it exists and the caller's tier covers it. */
export function checkModelAccess(caller: Caller, modelId: string, model: Model | undefined): Model {
	if (!model) {
		const issue = `model must be an id from GET /models; "${modelId}" is not one`;
		throw new ApiFailure(400, 'invalid', `Unknown model "${modelId}"`, [issue]);
	}
	// The house engines are the models marked free_tier.
	if (caller.type === 'anonymous' && !model.free_tier) {
		throw new ApiFailure(403, 'needs_api_key', `The free tier does not cover ${model.id}`);
	}
	if (caller.type === 'anonymous' && model.kind !== 'image') {
		throw new ApiFailure(403, 'needs_api_key', `The anonymous free tier covers only the house image engine`);
	}
	return model;
}

/** Every problem with the request at once (options, files, webhook); returns the driving audio's length. */
export function checkRequest(
	req: GenerationRequest,
	model: Model,
	rootUrl: string,
	receivedUploadAt: UploadLookup,
	allowLoopbackWebhooks: boolean,
): number | undefined {
	const files = checkInputFiles(req, rootUrl, receivedUploadAt);
	const issues = [...checkAgainstModel(req, model), ...files.issues];
	if (req.webhookUrl !== undefined) {
		const problem = checkWebhookUrl(req.webhookUrl, allowLoopbackWebhooks);
		if (problem) issues.push(problem);
	}
	if (issues.length) throw new ApiFailure(400, 'invalid', 'The request has invalid parameters', issues);
	return files.audioSeconds;
}

/** The operator's switches: generation paused, moderation down. */
export function checkSwitches(config: SandboxConfig): void {
	if (config.paused) throw new ApiFailure(503, 'paused', 'Generation is paused by the operator');
	if (config.moderation === 'down') {
		throw new ApiFailure(503, 'moderation_unavailable', 'Content moderation is unavailable');
	}
}

/** Moderation reads the prompt and the uploaded reference images (not the end frame). */
export function checkModeration(req: GenerationRequest, receivedUploadAt: UploadLookup): void {
	const flaggedImage = (req.imageUrls ?? []).some((url) => receivedUploadAt(url)?.hasModerationMarker);
	if (MODERATION_WORD.test(req.prompt) || flaggedImage) {
		throw new ApiFailure(400, 'rejected', 'The request was refused by content moderation');
	}
}

/**
 * Free accounts run the house engines free a few times a day. The run is counted here, before the
 * concurrency and credit checks, so a submission those refuse still uses it up.
 */
export function useFreeRun(caller: Caller, model: Model, freeDailyRuns: number): boolean {
	if (caller.type !== 'account' || caller.account.tier !== 'free' || !model.free_tier) return false;
	const day = today();
	const { freeRunsToday } = caller.account;
	const used = freeRunsToday.day === day ? freeRunsToday.count : 0;
	if (used >= freeDailyRuns) return false;
	caller.account.freeRunsToday = { day, count: used + 1 };
	return true;
}

export function checkConcurrency(caller: Caller, activeRuns: number): void {
	const concurrency = caller.type === 'account' ? caller.account.concurrency : 1;
	if (activeRuns >= concurrency) {
		throw new ApiFailure(409, 'busy', `Too many concurrent runs: ${activeRuns} of ${concurrency} in progress`);
	}
}

export function checkBalance(caller: Caller, balance: number, cost: number): void {
	if (balance >= cost) return;
	if (caller.type === 'anonymous') throw new ApiFailure(402, 'allowance', 'The free wallet is used up');
	throw new ApiFailure(402, 'credits', `Not enough credits: the run costs ${cost}, ${balance} left`);
}

export interface NewRun {
	id: string;
	caller: Caller;
	req: GenerationRequest;
	model: Model;
	options: Options;
	cost: number;
	now: number;
	createdAt: number;
	outcome: Run['outcome'];
}

/** How long a run of `kind` with this prompt stays PROCESSING: the kind's duration, varied by the seeded jitter. */
export function processingMs(config: Pick<SandboxConfig, 'durations' | 'durationJitter'>, kind: Kind, prompt: string) {
	const base = config.durations[kind];
	const { spread, seed } = config.durationJitter ?? { spread: 0, seed: 0 };
	if (!spread) return base;
	const digest = createHash('sha256').update(`${seed}:${kind}:${prompt}`).digest();
	const uniform = digest.readUInt32BE(0) / 2 ** 32;
	return Math.round(base * (1 + spread * (2 * uniform - 1)));
}

/** A PENDING run, with the times at which it starts and finishes by the configured durations. */
export function buildRun(n: NewRun, config: SandboxConfig): Run {
	const { caller, req, model, now, outcome } = n;
	const startsAt = now + config.durations.pendingMs;
	const finishesAt =
		outcome === 'stuck'
			? now + STUCK_AFTER_MS * config.timeScale
			: startsAt + processingMs(config, model.kind, req.prompt);
	return {
		id: n.id,
		ownerId: caller.ownerId,
		kind: model.kind,
		model: model.id,
		prompt: req.prompt,
		options: n.options,
		cost: n.cost,
		status: 'PENDING',
		error: null,
		createdAt: n.createdAt,
		outputs: [],
		refunded: 0,
		requestKey: req.requestKey,
		webhookUrl: req.webhookUrl,
		viaApiKey: caller.type === 'account',
		watermarked: caller.type === 'anonymous' || (caller.type === 'account' && caller.account.watermarked),
		startsAt,
		finishesAt,
		outcome,
		// A deep copy: what was asked, for the control surface's run list.
		request: JSON.parse(JSON.stringify(req)) as Record<string, unknown>,
	};
}
