// The sandbox's state and rules: identities, wallets, runs and their clock, the credit ledger,
// uploads and outputs. No HTTP here: server.ts maps requests onto these methods.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { MINUTE, type SandboxConfig } from './config';
import { audioSecondsFromBytes, priceOf } from './pricing';
import type { Account, Caller, Endpoint, LedgerEntry, LogEntry, Model, Options, Run, Wallet } from './types';
import { checkAgainstModel, checkWebhookUrl, type GenerationRequest } from './validate';
import { endpointShouldBeDisabled, newWebhookSecret, WebhookSender } from './webhooks';

export class ApiFailure extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly issues?: string[],
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export interface Upload {
	id: string;
	ownerId: string;
	mime: string;
	bytes: number;
	token: string;
	expiresAt: number;
	filePath?: string;
	received: boolean;
	hasModerationMarker: boolean;
}

const HOUSE_FREE_MODELS = (m: Model) => m.free_tier;
export const MODERATION_WORD = /\bforbidden\b/i;
export const MODERATION_MARKER = 'MODERATE-ME';
const FAIL_MARKER = '[fail]';
/** Fails the first run with this exact prompt for an owner, succeeds afterwards (a flaky upstream). */
const FAIL_FIRST_MARKER = '[fail-first]';
const STUCK_MARKER = '[stuck]';
const STUCK_AFTER_MS = 30 * MINUTE;

function id(prefix: string, bytes = 8): string {
	return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}

export class Engine {
	models: Model[] = [];
	apps: Array<Record<string, unknown>> = [];
	accounts = new Map<string, Account>();
	wallets = new Map<string, Wallet>();
	runs = new Map<string, Run>();
	ledger: LedgerEntry[] = [];
	log: LogEntry[] = [];
	uploads = new Map<string, Upload>();
	webhooks: WebhookSender;
	/** Signs deliveries of anonymous runs that name a webhookUrl (no account secret exists for them). */
	anonymousWebhookSecret = newWebhookSecret();
	private timers = new Set<NodeJS.Timeout>();
	private lastCreatedAt = new Map<string, number>();
	private walletsByAddress = new Map<string, { day: string; count: number }>();
	rootUrl = '';

	constructor(readonly config: SandboxConfig) {
		this.webhooks = new WebhookSender(
			() => this.config.timeScale,
			() => this.config.deliveryTimeoutMs,
			{
				isEnabled: (endpointId) => this.findEndpoint(endpointId)?.enabled ?? false,
				onResult: (endpointId, ok, now) => this.endpointResult(endpointId, ok, now),
			},
		);
		this.loadCatalogues();
	}

	loadCatalogues(): void {
		const dataDir = path.join(__dirname, 'data');
		this.models = (JSON.parse(readFileSync(this.config.modelsFile ?? path.join(dataDir, 'models.json'), 'utf8')) as { models: Model[] }).models;
		this.apps = (JSON.parse(readFileSync(this.config.appsFile ?? path.join(dataDir, 'apps.json'), 'utf8')) as { apps: Array<Record<string, unknown>> }).apps;
	}

	appsWithRoot(): Array<Record<string, unknown>> {
		return JSON.parse(JSON.stringify(this.apps).split('{root}').join(this.rootUrl)) as Array<Record<string, unknown>>;
	}

	reset(): void {
		this.stopTimers();
		this.accounts.clear();
		this.wallets.clear();
		this.runs.clear();
		this.ledger = [];
		this.log = [];
		this.uploads.clear();
		this.lastCreatedAt.clear();
		this.walletsByAddress.clear();
		this.webhooks.deliveries.length = 0;
	}

	stopTimers(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.webhooks.stop();
	}

	// ── identities ─────────────────────────────────────────────────────────

	createAccount(input: Partial<Pick<Account, 'tier' | 'credits' | 'concurrency' | 'watermarked' | 'email'>> & { apiKey?: string } = {}): Account {
		const tier = input.tier ?? 'paid';
		const account: Account = {
			id: id('acct', 6),
			email: input.email ?? `user${this.accounts.size + 1}@example.test`,
			tier,
			credits: input.credits ?? 1000,
			concurrency: input.concurrency ?? (tier === 'paid' ? 3 : 1),
			watermarked: input.watermarked ?? tier !== 'paid',
			keys: [input.apiKey ?? `sk_${randomBytes(20).toString('hex')}`],
			revokedKeys: [],
			webhookSecret: newWebhookSecret(),
			endpoints: [],
			freeRunsToday: { day: '', count: 0 },
		};
		this.accounts.set(account.id, account);
		this.addLedger(account.id, account.credits, 'topup', account.credits);
		return account;
	}

	addEndpoint(accountId: string, url: string, secret?: string): Endpoint {
		const account = this.accounts.get(accountId);
		if (!account) throw new ApiFailure(404, 'not_found', 'No such account');
		if (account.endpoints.length >= 5) throw new ApiFailure(400, 'invalid', 'An account has at most 5 webhook endpoints', ['endpoints: at most 5']);
		const problem = checkWebhookUrl(url, this.config.allowLoopbackWebhooks);
		if (problem) throw new ApiFailure(400, 'invalid', problem, [problem]);
		const endpoint: Endpoint = { id: id('ep', 5), url, secret: secret ?? newWebhookSecret(), enabled: true, firstFailureAt: null };
		account.endpoints.push(endpoint);
		return endpoint;
	}

	private findEndpoint(endpointId: string): Endpoint | undefined {
		for (const a of this.accounts.values()) {
			const e = a.endpoints.find((x) => x.id === endpointId);
			if (e) return e;
		}
		return undefined;
	}

	private endpointResult(endpointId: string, ok: boolean, now: number): void {
		const e = this.findEndpoint(endpointId);
		if (!e) return;
		if (ok) e.firstFailureAt = null;
		else {
			e.firstFailureAt ??= now;
			if (endpointShouldBeDisabled(e.firstFailureAt, now, this.config.timeScale)) {
				e.enabled = false;
				e.disabledNotice = `Endpoint switched off after failing for 3 days; owner notified by e-mail at ${new Date(now).toISOString()}`;
			}
		}
	}

	/** Who is calling: the key wins when both headers come (spec Authentication rule 1). */
	identify(authorization: string | undefined, anonId: string | undefined, address: string): Caller {
		if (authorization !== undefined && authorization !== '') {
			const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
			const key = match?.[1] ?? '';
			for (const account of this.accounts.values()) {
				if (account.keys.includes(key) && !account.revokedKeys.includes(key)) {
					return { type: 'account', account, ownerId: account.id };
				}
			}
			throw new ApiFailure(401, 'invalid_api_key', 'The API key is invalid or has been revoked');
		}
		if (anonId !== undefined && anonId !== '') {
			if (this.config.trialClosed) throw new ApiFailure(403, 'trial_closed', 'The free tier is switched off for now');
			if (!/^[A-Za-z0-9._-]{8,80}$/.test(anonId)) {
				// Sandbox choice for "unknown_anon_id": an id of the wrong shape is refused with 401.
				throw new ApiFailure(401, 'unknown_anon_id', 'The anonymous id is not recognised: 8 to 80 letters, digits, ".", "_" or "-"');
			}
			let wallet = this.wallets.get(anonId);
			if (!wallet) {
				const day = new Date().toISOString().slice(0, 10);
				const opened = this.walletsByAddress.get(address);
				const count = opened && opened.day === day ? opened.count : 0;
				if (count >= 3) throw new ApiFailure(429, 'anon_ip_daily', 'This address has opened its 3 free wallets for today');
				this.walletsByAddress.set(address, { day, count: count + 1 });
				wallet = { anonId, credits: 5, address, openedAt: Date.now() };
				this.wallets.set(anonId, wallet);
				this.addLedger(`anon:${anonId}`, 5, 'topup', 5);
			}
			return { type: 'anonymous', wallet, ownerId: `anon:${anonId}` };
		}
		throw new ApiFailure(401, 'unauthorized', 'Send an API key (Authorization: Bearer sk_…) or an x-anon-id header');
	}

	me(caller: Caller): Record<string, unknown> {
		if (caller.type === 'anonymous') {
			return { tier: 'anonymous', credits: caller.wallet.credits, watermarked: true, concurrency: 1 };
		}
		const a = caller.account;
		return { tier: a.tier, email: a.email, credits: a.credits, watermarked: a.watermarked, concurrency: a.concurrency };
	}

	// ── credits ────────────────────────────────────────────────────────────

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

	private addLedger(ownerId: string, delta: number, reason: LedgerEntry['reason'], balance: number, runId?: string): void {
		this.ledger.push({ at: Date.now(), ownerId, runId, delta, reason, balance });
	}

	setCredits(ownerId: string, credits: number): void {
		const delta = credits - this.balanceOf(ownerId);
		const balance = this.adjust(ownerId, delta);
		this.addLedger(ownerId, delta, 'topup', balance);
	}

	// ── runs ───────────────────────────────────────────────────────────────

	findModel(modelId: string): Model | undefined {
		return this.models.find((m) => m.id === modelId);
	}

	getUploadByUrl(url: string): Upload | undefined {
		const m = /\/files\/uploads\/([a-z0-9_]+)\.[a-z0-9]+$/i.exec(url);
		if (!m || !url.startsWith(this.rootUrl)) return undefined;
		const up = this.uploads.get(m[1]);
		return up?.received ? up : undefined;
	}

	/** POST /generations after rate limits and faults: validation, moderation, idempotency, price, charge. */
	createGeneration(caller: Caller, req: GenerationRequest, providerFailure = false): { run: Run; replay: boolean } {
		if (req.requestKey) {
			const previous = [...this.runs.values()].find((r) => r.ownerId === caller.ownerId && r.requestKey === req.requestKey);
			if (previous) return { run: this.settle(previous), replay: true };
		}
		const model = this.findModel(req.model);
		if (!model) {
			throw new ApiFailure(400, 'invalid', `Unknown model "${req.model}"`, [`model must be an id from GET /models; "${req.model}" is not one`]);
		}
		if (caller.type === 'anonymous' && !HOUSE_FREE_MODELS(model)) {
			throw new ApiFailure(403, 'needs_api_key', `The free tier does not cover ${model.id}`);
		}
		if (caller.type === 'anonymous' && model.kind !== 'image') {
			throw new ApiFailure(403, 'needs_api_key', `The anonymous free tier covers only the house image engine`);
		}
		const issues = checkAgainstModel(req, model);
		const images = req.imageUrls ?? [];
		let audioSeconds: number | undefined;
		for (const [i, url] of [...images, ...(req.endImageUrl ? [req.endImageUrl] : [])].entries()) {
			const upload = url.startsWith(this.rootUrl) ? this.getUploadByUrl(url) : undefined;
			if (url.startsWith(this.rootUrl) && (!upload || !upload.mime.startsWith('image/'))) {
				issues.push(`imageUrls[${i}] is not an uploaded image (PNG, JPEG or WebP)`);
			} else if (!url.startsWith(this.rootUrl) && !url.startsWith('https://')) {
				issues.push(`imageUrls[${i}] must be an upload URL or a public https image`);
			}
		}
		if (req.audioUrl !== undefined) {
			const upload = this.getUploadByUrl(req.audioUrl);
			if (!upload || !upload.mime.startsWith('audio/')) issues.push('audioUrl must be an audio file uploaded through POST /uploads first');
			else audioSeconds = audioSecondsFromBytes(upload.mime, upload.bytes);
		}
		if (req.webhookUrl !== undefined) {
			const problem = checkWebhookUrl(req.webhookUrl, this.config.allowLoopbackWebhooks);
			if (problem) issues.push(problem);
		}
		if (issues.length) throw new ApiFailure(400, 'invalid', 'The request has invalid parameters', issues);
		if (this.config.paused) throw new ApiFailure(503, 'paused', 'Generation is paused by the operator');
		if (this.config.moderation === 'down') throw new ApiFailure(503, 'moderation_unavailable', 'Content moderation is unavailable');
		const flaggedImage = images.some((u) => this.getUploadByUrl(u)?.hasModerationMarker);
		if (MODERATION_WORD.test(req.prompt) || flaggedImage) {
			throw new ApiFailure(400, 'rejected', 'The request was refused by content moderation');
		}
		const options: Options = { ...model.defaults, ...(req.options as Options) };
		let cost = priceOf(model, options, audioSeconds);
		if (caller.type === 'account' && caller.account.tier === 'free' && model.free_tier) {
			const day = new Date().toISOString().slice(0, 10);
			const used = caller.account.freeRunsToday.day === day ? caller.account.freeRunsToday.count : 0;
			if (used < this.config.freeDailyRuns) {
				caller.account.freeRunsToday = { day, count: used + 1 };
				cost = 0;
			}
		}
		const active = [...this.runs.values()].filter((r) => r.ownerId === caller.ownerId && this.isActive(this.settle(r)));
		const concurrency = caller.type === 'account' ? caller.account.concurrency : 1;
		if (active.length >= concurrency) {
			throw new ApiFailure(409, 'busy', `Too many concurrent runs: ${active.length} of ${concurrency} in progress`);
		}
		if (this.balanceOf(caller.ownerId) < cost) {
			if (caller.type === 'anonymous') throw new ApiFailure(402, 'allowance', 'The free wallet is used up');
			throw new ApiFailure(402, 'credits', `Not enough credits: the run costs ${cost}, ${this.balanceOf(caller.ownerId)} left`);
		}
		if (providerFailure) {
			// Charged, then refunded at once because the upstream model failed at submission.
			const runId = id('gen');
			this.addLedger(caller.ownerId, -cost, 'charge', this.adjust(caller.ownerId, -cost), runId);
			this.addLedger(caller.ownerId, cost, 'provider_refund', this.adjust(caller.ownerId, cost), runId);
			throw new ApiFailure(502, 'provider', 'The upstream model failed; credits refunded');
		}
		const now = Date.now();
		let createdAt = now;
		const last = this.lastCreatedAt.get(caller.ownerId) ?? 0;
		if (createdAt <= last) createdAt = last + 1; // distinct createdAt keeps the `before` cursor exact
		this.lastCreatedAt.set(caller.ownerId, createdAt);
		const d = this.config.durations;
		const failsFirst =
			req.prompt.includes(FAIL_FIRST_MARKER) &&
			![...this.runs.values()].some((r) => r.ownerId === caller.ownerId && r.prompt === req.prompt);
		const outcome = req.prompt.includes(STUCK_MARKER)
			? 'stuck'
			: req.prompt.includes(FAIL_MARKER) || failsFirst
				? 'fail'
				: 'succeed';
		const run: Run = {
			id: id('gen'),
			ownerId: caller.ownerId,
			kind: model.kind,
			model: model.id,
			prompt: req.prompt,
			options,
			cost,
			status: 'PENDING',
			error: null,
			createdAt,
			outputs: [],
			refunded: 0,
			requestKey: req.requestKey,
			webhookUrl: req.webhookUrl,
			viaApiKey: caller.type === 'account',
			watermarked: caller.type === 'anonymous' || (caller.type === 'account' && caller.account.watermarked),
			startsAt: now + d.pendingMs,
			finishesAt: outcome === 'stuck' ? now + STUCK_AFTER_MS * this.config.timeScale : now + d.pendingMs + d[model.kind],
			outcome,
			request: JSON.parse(JSON.stringify(req)) as Record<string, unknown>,
		};
		this.runs.set(run.id, run);
		if (cost > 0) this.addLedger(caller.ownerId, -cost, 'charge', this.adjust(caller.ownerId, -cost), run.id);
		else this.addLedger(caller.ownerId, 0, 'charge', this.balanceOf(caller.ownerId), run.id);
		// Runs keep going when nobody polls: a timer settles each one when it is due.
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			this.settle(run);
		}, Math.max(0, run.finishesAt - now) + 1);
		timer.unref?.();
		this.timers.add(timer);
		return { run, replay: false };
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
				run.outputs = this.outputsFor(run);
			} else {
				run.status = 'FAILED';
				run.error = run.outcome === 'stuck' ? 'Run timed out after 30 minutes and was refunded' : 'The model failed to produce an output';
				run.refunded = run.cost;
				if (run.cost > 0) this.addLedger(run.ownerId, run.cost, 'refund', this.adjust(run.ownerId, run.cost), run.id);
			}
			this.deliverFinished(run);
		} else if (now >= run.startsAt) {
			run.status = 'PROCESSING';
		}
		return run;
	}

	private outputsFor(run: Run): Run['outputs'] {
		const base = `${this.rootUrl}/files/outputs/${run.id}`;
		if (run.kind === 'image') {
			const ext = ({ PNG: 'png', JPG: 'jpg', WEBP: 'webp' } as Record<string, string>)[run.options.format ?? 'PNG'] ?? 'png';
			const mime = ({ png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as Record<string, string>)[ext];
			return [{ url: `${base}/0.${ext}`, mime }];
		}
		if (run.kind === 'video') return [{ url: `${base}/0.mp4`, mime: 'video/mp4' }];
		const instrumental = run.options.tier === 'Instrumental';
		const title = run.options.title ?? (run.prompt.slice(0, 40).replace(/\s+\S*$/, '') || 'Untitled');
		return [0, 1].map((n) => ({
			url: `${base}/${n}.mp3`,
			mime: 'audio/mpeg',
			cover: `${base}/${n}-cover.png`,
			title: n === 0 ? title : `${title} (take 2)`,
			...(instrumental ? {} : { lyrics: run.options.tier === 'Lyrics' ? run.prompt : `[Verse]\n${run.prompt}\n[Chorus]\nLa la la` }),
			seconds: 30 + n * 7,
		}));
	}

	publicRun(run: Run): Record<string, unknown> {
		return {
			id: run.id,
			kind: run.kind,
			model: run.model,
			prompt: run.prompt,
			options: run.options,
			cost: run.cost,
			status: run.status,
			error: run.error,
			createdAt: run.createdAt,
			outputs: run.outputs,
		};
	}

	private deliverFinished(run: Run): void {
		const outcome = run.status === 'SUCCEEDED' ? 'succeeded' : 'failed';
		const msgId = `msg_${run.id}_${outcome}`;
		const payload = this.publicRun(run);
		if (run.status === 'FAILED') payload.refunded = run.refunded;
		const body = JSON.stringify(payload);
		if (run.webhookUrl) {
			const account = run.viaApiKey ? this.accounts.get(run.ownerId) : undefined;
			const secret = account?.webhookSecret ?? this.anonymousWebhookSecret;
			this.webhooks.send({ url: run.webhookUrl, secret, endpointId: null, ownerId: run.ownerId }, msgId, body, run.id);
			return;
		}
		if (!run.viaApiKey) return;
		for (const ep of this.accounts.get(run.ownerId)?.endpoints ?? []) {
			if (ep.enabled) this.webhooks.send({ url: ep.url, secret: ep.secret, endpointId: ep.id, ownerId: run.ownerId }, msgId, body, run.id);
		}
	}

	sendTestEvent(accountId: string): void {
		const account = this.accounts.get(accountId);
		if (!account) throw new ApiFailure(404, 'not_found', 'No such account');
		const body = JSON.stringify({ type: 'test', message: 'Test event from the Media Generation API sandbox', createdAt: Date.now() });
		for (const ep of account.endpoints) {
			this.webhooks.send({ url: ep.url, secret: ep.secret, endpointId: ep.id, ownerId: account.id }, `msg_test_${randomBytes(6).toString('hex')}`, body, null);
		}
	}

	listRuns(caller: Caller, limit: number, before?: number): { generations: Record<string, unknown>[]; next_before: number | null } {
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

	// ── uploads ────────────────────────────────────────────────────────────

	newUploadId(): string {
		return id('up', 8);
	}
}
