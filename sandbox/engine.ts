/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The sandbox's state and rules: identities, wallets, runs and their clock, the credit ledger,
// uploads and outputs. No HTTP here: the handlers in routes/ map requests onto these methods.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { ApiFailure } from './apiFailure';
import { MINUTE, type SandboxConfig } from './config';
import { addEndpointTo, findEndpoint, finishedRunTargets, noteDeliveryResult } from './endpoints';
import { accountForKey, checkAnonymousId, newAccount, type NewAccount, profileOf } from './identities';
import { plannedOutcome } from './markers';
import { outputsFor } from './outputs';
import { priceOf } from './pricing';
import { withUnknownFields } from './strict';
import {
	buildRun,
	checkBalance,
	checkConcurrency,
	checkModelAccess,
	checkModeration,
	checkRequest,
	checkSwitches,
	today,
	useFreeRun,
} from './submission';
import type { Account, Caller, Endpoint, LedgerEntry, LogEntry, Model, Options, Run, Upload, Wallet } from './types';
import type { GenerationRequest } from './validate';
import { newWebhookSecret, WebhookSender } from './webhooks';

const UPLOAD_SLOT_MS = 5 * MINUTE;

function id(prefix: string, bytes = 8): string {
	return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}

type CatalogueApp = Record<string, unknown>;

/** One page of GET /generations; next_before is the cursor of the next page, null on the last. */
interface RunPage {
	generations: Record<string, unknown>[];
	next_before: number | null;
}

export class Engine {
	models: Model[] = [];
	apps: CatalogueApp[] = [];
	accounts = new Map<string, Account>();
	wallets = new Map<string, Wallet>();
	runs = new Map<string, Run>();
	ledger: LedgerEntry[] = [];
	log: LogEntry[] = [];
	/** How many times each run's output files were downloaded (GET), by run ID. */
	outputDownloads = new Map<string, number>();
	uploads = new Map<string, Upload>();
	webhooks: WebhookSender;
	/** Signs deliveries of anonymous runs that name a webhookUrl (no account secret exists for them). */
	anonymousWebhookSecret = newWebhookSecret();
	/** Shape-valid anonymous ids the service no longer recognises (POST /_sandbox/anonymous-ids/unknown). */
	unknownAnonIds = new Set<string>();
	/** Strict mode: signs every delivery to a run's own webhookUrl (neither the account's nor an endpoint's). */
	readonly runWebhookSecret = newWebhookSecret();
	private timers = new Set<NodeJS.Timeout>();
	private lastCreatedAt = new Map<string, number>();
	private walletsByAddress = new Map<string, { day: string; count: number }>();
	rootUrl = '';

	constructor(readonly config: SandboxConfig) {
		this.webhooks = new WebhookSender(
			() => this.config.timeScale,
			() => this.config.deliveryTimeoutMs,
			{
				isEnabled: (endpointId) => findEndpoint(this.accounts.values(), endpointId)?.enabled ?? false,
				onResult: (endpointId, ok, now) => {
					const endpoint = findEndpoint(this.accounts.values(), endpointId);
					if (endpoint) noteDeliveryResult(endpoint, ok, now, this.config.timeScale);
				},
			},
		);
		this.loadCatalogues();
	}

	loadCatalogues(): void {
		const dataDir = path.join(__dirname, 'data');
		const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;
		this.models = (read(this.config.modelsFile ?? path.join(dataDir, 'models.json')) as { models: Model[] }).models;
		const apps = read(this.config.appsFile ?? path.join(dataDir, 'apps.json'));
		this.apps = (apps as { apps: CatalogueApp[] }).apps;
	}

	/** The apps catalogue with its "{root}" placeholders filled with this sandbox's address. */
	appsWithRoot(): CatalogueApp[] {
		return JSON.parse(JSON.stringify(this.apps).split('{root}').join(this.rootUrl)) as CatalogueApp[];
	}

	reset(): void {
		this.stopTimers();
		this.accounts.clear();
		this.wallets.clear();
		this.runs.clear();
		this.ledger = [];
		this.log = [];
		this.outputDownloads.clear();
		this.uploads.clear();
		this.lastCreatedAt.clear();
		this.walletsByAddress.clear();
		this.unknownAnonIds.clear();
		this.webhooks.deliveries.length = 0;
	}

	stopTimers(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.webhooks.stop();
	}

	// ── identities ────────────────────

	createAccount(input: NewAccount = {}): Account {
		const account = newAccount(input, this.accounts.size + 1);
		this.accounts.set(account.id, account);
		this.addLedger(account.id, account.credits, 'topup', account.credits);
		return account;
	}

	addEndpoint(accountId: string, url: string, secret?: string): Endpoint {
		const account = this.accounts.get(accountId);
		if (!account) throw new ApiFailure(404, 'not_found', 'No such account');
		return addEndpointTo(account, url, secret, this.config.allowLoopbackWebhooks);
	}

	/** Who is calling: the key wins when both headers come (spec Authentication rule 1). */
	identify(authorization: string | undefined, anonId: string | undefined, address: string): Caller {
		if (authorization !== undefined && authorization !== '') {
			const account = accountForKey(this.accounts.values(), authorization);
			return { type: 'account', account, ownerId: account.id };
		}
		if (anonId !== undefined && anonId !== '') {
			checkAnonymousId(anonId, this.config, this.unknownAnonIds);
			const wallet = this.wallets.get(anonId) ?? this.openWallet(anonId, address);
			return { type: 'anonymous', wallet, ownerId: `anon:${anonId}` };
		}
		const message = 'Send an API key (Authorization: Bearer sk_…) or an x-anon-id header';
		throw new ApiFailure(401, 'unauthorized', message);
	}

	/** A new anonymous wallet of 5 credits; an address opens at most 3 a day. */
	private openWallet(anonId: string, address: string): Wallet {
		const day = today();
		const opened = this.walletsByAddress.get(address);
		const count = opened && opened.day === day ? opened.count : 0;
		if (count >= 3) {
			throw new ApiFailure(429, 'anon_ip_daily', 'This address has opened its 3 free wallets for today');
		}
		this.walletsByAddress.set(address, { day, count: count + 1 });
		const wallet: Wallet = { anonId, credits: 5, address, openedAt: Date.now() };
		this.wallets.set(anonId, wallet);
		this.addLedger(`anon:${anonId}`, 5, 'topup', 5);
		return wallet;
	}

	me(caller: Caller): Record<string, unknown> {
		return profileOf(caller);
	}

	// ── credits ────────────────────

	balanceOf(ownerId: string): number {
		if (ownerId.startsWith('anon:')) return this.wallets.get(ownerId.slice(5))?.credits ?? 0;
		return this.accounts.get(ownerId)?.credits ?? 0;
	}

	private adjust(ownerId: string, delta: number): number {
		if (ownerId.startsWith('anon:')) {
			const w = this.wallets.get(ownerId.slice(5));
			if (w) w.credits += delta;
			return w?.credits ?? 0;
		}
		const a = this.accounts.get(ownerId);
		if (a) a.credits += delta;
		return a?.credits ?? 0;
	}

	private addLedger(
		ownerId: string,
		delta: number,
		reason: LedgerEntry['reason'],
		balance: number,
		runId?: string,
	): void {
		this.ledger.push({ at: Date.now(), ownerId, runId, delta, reason, balance });
	}

	/** Moves credits and writes the ledger line that records it, with the balance after. */
	private book(ownerId: string, delta: number, reason: LedgerEntry['reason'], runId?: string): void {
		this.addLedger(ownerId, delta, reason, this.adjust(ownerId, delta), runId);
	}

	setCredits(ownerId: string, credits: number): void {
		this.book(ownerId, credits - this.balanceOf(ownerId), 'topup');
	}

	// ── runs ────────────────────

	findModel(modelId: string): Model | undefined {
		return this.models.find((m) => m.id === modelId);
	}

	getUploadByUrl(url: string): Upload | undefined {
		const m = /\/files\/uploads\/([a-z0-9_]+)\.[a-z0-9]+$/i.exec(url);
		if (!m || !url.startsWith(this.rootUrl)) return undefined;
		const up = this.uploads.get(m[1]);
		return up?.received ? up : undefined;
	}

	/** POST /generations after rate limits and faults: each step refuses the request or moves it on. */
	createGeneration(caller: Caller, req: GenerationRequest, providerFailure = false): { run: Run; replay: boolean } {
		const previous = this.findByRequestKey(caller, req.requestKey);
		if (previous) return { run: this.settle(previous), replay: true };
		const { config } = this;
		const receivedUploadAt = (url: string) => this.getUploadByUrl(url);
		const model = checkModelAccess(caller, req.model, this.findModel(req.model));
		const audioSeconds = checkRequest(req, model, this.rootUrl, receivedUploadAt, config.allowLoopbackWebhooks);
		checkSwitches(config);
		checkModeration(req, receivedUploadAt);
		const options: Options = { ...model.defaults, ...(req.options as Options) };
		const planFactor = caller.type === 'account' ? caller.account.priceFactor : 1;
		const cost = useFreeRun(caller, model, config.freeDailyRuns)
			? 0
			: Math.max(1, Math.round(priceOf(model, options, audioSeconds) * planFactor));
		checkConcurrency(caller, this.activeRunCount(caller.ownerId));
		checkBalance(caller, this.balanceOf(caller.ownerId), cost);
		if (providerFailure) this.failAtProvider(caller, cost);
		const now = Date.now();
		const run = buildRun(
			{
				id: id('gen'),
				caller,
				req,
				model,
				options,
				cost,
				now,
				createdAt: this.nextCreatedAt(caller.ownerId, now),
				outcome: plannedOutcome(req.prompt, () => this.hasRunWithPrompt(caller.ownerId, req.prompt)),
			},
			config,
		);
		// Strict mode: a new run is QUEUED for the first half of its wait, then PENDING (the spec shows no order).
		if (config.strict) {
			run.status = 'QUEUED';
			run.queuedUntil = now + config.durations.pendingMs / 2;
		}
		this.runs.set(run.id, run);
		this.charge(run);
		this.settleWhenDue(run, now);
		return { run, replay: false };
	}

	/** A repeated requestKey answers with the run it made the first time, instead of a second run. */
	private findByRequestKey(caller: Caller, requestKey: string | undefined): Run | undefined {
		if (!requestKey) return undefined;
		for (const run of this.runs.values()) {
			if (run.ownerId === caller.ownerId && run.requestKey === requestKey) return run;
		}
		return undefined;
	}

	/** Runs of the owner still in progress (settled on the clock first). */
	private activeRunCount(ownerId: string): number {
		return [...this.runs.values()].filter((r) => r.ownerId === ownerId && this.isActive(this.settle(r))).length;
	}

	private hasRunWithPrompt(ownerId: string, prompt: string): boolean {
		return [...this.runs.values()].some((r) => r.ownerId === ownerId && r.prompt === prompt);
	}

	/** The upstream model fails at submission: charged, then refunded at once, and no run is kept. */
	private failAtProvider(caller: Caller, cost: number): never {
		const runId = id('gen');
		this.book(caller.ownerId, -cost, 'charge', runId);
		this.book(caller.ownerId, cost, 'provider_refund', runId);
		throw new ApiFailure(502, 'provider', 'The upstream model failed; credits refunded');
	}

	/** A distinct createdAt per owner keeps the list's `before` cursor exact. */
	private nextCreatedAt(ownerId: string, now: number): number {
		const createdAt = Math.max(now, (this.lastCreatedAt.get(ownerId) ?? 0) + 1);
		this.lastCreatedAt.set(ownerId, createdAt);
		return createdAt;
	}

	/** Every run has a charge line, free runs too (with 0), so the ledger lists each run. */
	private charge(run: Run): void {
		if (run.cost > 0) this.book(run.ownerId, -run.cost, 'charge', run.id);
		else this.addLedger(run.ownerId, 0, 'charge', this.balanceOf(run.ownerId), run.id);
	}

	/** Runs keep going when nobody polls: a timer settles each one when it is due. */
	private settleWhenDue(run: Run, now: number): void {
		const timer = setTimeout(
			() => {
				this.timers.delete(timer);
				this.settle(run);
			},
			Math.max(0, run.finishesAt - now) + 1,
		);
		timer.unref?.();
		this.timers.add(timer);
	}

	isActive(run: Run): boolean {
		return run.status === 'PENDING' || run.status === 'PROCESSING' || run.status === 'QUEUED';
	}

	/** Advances a run on the clock; on reaching a final state fills outputs, refunds and sends the webhook. */
	settle(run: Run, now = Date.now()): Run {
		if (!this.isActive(run)) return run;
		if (now >= run.finishesAt) {
			if (run.outcome === 'succeed') {
				run.status = 'SUCCEEDED';
				run.outputs = outputsFor(run, this.rootUrl);
			} else {
				run.status = 'FAILED';
				run.error =
					run.outcome === 'stuck'
						? 'Run timed out after 30 minutes and was refunded'
						: 'The model failed to produce an output';
				run.refunded = run.cost;
				if (run.cost > 0) this.book(run.ownerId, run.cost, 'refund', run.id);
			}
			this.deliverFinished(run);
		} else if (now >= run.startsAt) {
			run.status = 'PROCESSING';
		} else if (run.status === 'QUEUED' && now >= (run.queuedUntil ?? 0)) {
			run.status = 'PENDING';
		}
		return run;
	}

	/** A run as the API answers and delivers it (strict mode: with unknown fields, on its outputs too). */
	publicRun(run: Run): Record<string, unknown> {
		const { strict } = this.config;
		return withUnknownFields(
			{
				id: run.id,
				kind: run.kind,
				model: run.model,
				prompt: run.prompt,
				options: run.options,
				cost: run.cost,
				status: run.status,
				error: run.error,
				createdAt: run.createdAt,
				outputs: run.outputs.map((output) => withUnknownFields(output, strict)),
			},
			strict,
		);
	}

	private deliverFinished(run: Run): void {
		const outcome = run.status === 'SUCCEEDED' ? 'succeeded' : 'failed';
		const msgId = `msg_${run.id}_${outcome}`;
		const payload = this.publicRun(run);
		if (run.status === 'FAILED') payload.refunded = run.refunded;
		const body = JSON.stringify(payload);
		for (const target of finishedRunTargets(
			run,
			this.accounts,
			this.anonymousWebhookSecret,
			this.config.strict ? this.runWebhookSecret : undefined,
		)) {
			this.webhooks.send(target, msgId, body, run.id);
		}
	}

	sendTestEvent(accountId: string): void {
		const account = this.accounts.get(accountId);
		if (!account) throw new ApiFailure(404, 'not_found', 'No such account');
		const message = 'Test event from the Media Generation API sandbox';
		const body = JSON.stringify({ type: 'test', message, createdAt: Date.now() });
		for (const ep of account.endpoints) {
			const target = { url: ep.url, secret: ep.secret, endpointId: ep.id, ownerId: account.id };
			this.webhooks.send(target, `msg_test_${randomBytes(6).toString('hex')}`, body, null);
		}
	}

	listRuns(caller: Caller, limit: number, before?: number): RunPage {
		const mine = [...this.runs.values()]
			.filter((r) => r.ownerId === caller.ownerId && (before === undefined || r.createdAt < before))
			.sort((a, b) => b.createdAt - a.createdAt);
		const page = mine.slice(0, limit).map((r) => this.publicRun(this.settle(r)));
		const more = mine.length > limit;
		return { generations: page, next_before: more ? (page[page.length - 1].createdAt as number) : null };
	}

	getRun(caller: Caller, runId: string): Run {
		const run = this.runs.get(runId);
		if (!run || run.ownerId !== caller.ownerId) throw new ApiFailure(404, 'not_found', 'No such generation');
		return this.settle(run);
	}

	// ── uploads ────────────────────

	newUploadId(): string {
		return id('up', 8);
	}

	/** A slot for one upload of `bytes` bytes of type `mime`, open for 5 minutes (scaled). */
	openUploadSlot(ownerId: string, mime: string, bytes: number): Upload {
		const uploadId = this.newUploadId();
		const upload: Upload = {
			id: uploadId,
			ownerId,
			mime,
			bytes,
			token: uploadId,
			expiresAt: Date.now() + UPLOAD_SLOT_MS * this.config.timeScale,
			received: false,
			hasModerationMarker: false,
		};
		this.uploads.set(uploadId, upload);
		return upload;
	}
}
