/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Everything a test or demo may turn: durations, the clock scale, limits, switches and faults.

export interface Durations {
	/** ms a run stays PENDING before PROCESSING */
	pendingMs: number;
	/** ms of PROCESSING per kind */
	image: number;
	video: number;
	music: number;
}

/**
 * Seeded run-to-run variation of the PROCESSING time: a run takes its kind's duration × (1 ± spread), the factor
 * drawn from a hash of the seed and the prompt, so one prompt takes equally long on every account and in every run
 * of a benchmark. Off (spread 0) by default.
 */
export interface DurationJitter {
	/** 0.5: from half to one and a half times the kind's duration, uniformly. */
	spread: number;
	seed: number;
}

export interface RateLimits {
	submitPerIdentity: number;
	submitPerAddress: number;
	readPerIdentity: number;
	readPerAddress: number;
	uploadPerIdentity: number;
}

/**
 * drop: the connection is cut before the request is handled; drop_after: handled, then the answer is lost;
 * late: read whole, the connection cut unanswered, then handled lateMs later (the client gave up, the service
 * still made and charged the run); slow: answered after slowMs; 404 / 409 (busy) / 429: answered so without
 * handling; malformed: handled, then answered with the same status and an empty JSON object.
 */
export type FaultKind =
	| '500'
	| '502'
	| '503'
	| 'drop'
	| 'drop_after'
	| 'late'
	| 'slow'
	| '404'
	| '409'
	| '429'
	| 'malformed';

/**
 * How an injected 429 says when to come back: Retry-After in seconds (the default), Retry-After as an HTTP date,
 * or no Retry-After at all, only X-RateLimit-Reset (with X-RateLimit-Limit and X-RateLimit-Remaining 0).
 */
export type RateLimitStyle = 'retry-after-seconds' | 'retry-after-date' | 'reset-only';

export interface FaultRule {
	/** "POST /generations", "GET /generations/:id", "*" … */
	route: string;
	/** Chance per request (0–1), drawn from a seeded generator. */
	rate?: number;
	kinds?: FaultKind[];
	/** A scripted sequence, consumed one per matching request; "ok" lets one through. */
	script?: Array<FaultKind | 'ok'>;
	seed?: number;
	/** Delay for "slow" answers. */
	slowMs?: number;
	/** How long after the cut a "late" request is handled, before the clock scale (default: drawn from 1–7 s). */
	lateMs?: number;
	/** Retry-After of injected 429 answers, in seconds (default 1). */
	retryAfterSeconds?: number;
	/** Which headers an injected 429 carries (default 'retry-after-seconds'). */
	rateLimitStyle?: RateLimitStyle;
}

export interface SandboxConfig {
	host: string;
	port: number;
	modelsFile?: string;
	appsFile?: string;
	durations: Durations;
	durationJitter: DurationJitter;
	/**
	 * Multiplies every spec time span (1 minute windows, 5 minute slots, 30 minute stuck runs,
	 * webhook retry schedule).
	 */
	timeScale: number;
	rateLimits: RateLimits;
	moderation: 'up' | 'down';
	paused: boolean;
	trialClosed: boolean;
	/** Pad every output file to at least this many bytes (0: small files). */
	outputBytes: number;
	/** Sandbox relaxation: allow http://127.0.0.1 and localhost webhook targets. */
	allowLoopbackWebhooks: boolean;
	/** How long a webhook receiver has to answer (spec: 10 s). */
	deliveryTimeoutMs: number;
	faults: FaultRule[];
	/** Free daily runs on the house engines for signed-in free accounts (spec: not shown). */
	freeDailyRuns: number;
	/** Print one line per request to stdout. */
	verbose: boolean;
	/**
	 * Strict mode: where the spec is silent, take the least convenient reading and add nothing it does not
	 * define (see CONTRIBUTING, "Sandbox behaviour"). Deliveries to a run's own webhookUrl are signed with a
	 * secret of their own (`Engine.runWebhookSecret`), neither the account's nor any endpoint's.
	 */
	strict: boolean;
}

export const FAST_DURATIONS: Durations = { pendingMs: 50, image: 150, video: 300, music: 200 };
export const REALISTIC_DURATIONS: Durations = { pendingMs: 2000, image: 20_000, video: 150_000, music: 50_000 };

export const SPEC_RATE_LIMITS: RateLimits = {
	submitPerIdentity: 20,
	submitPerAddress: 60,
	readPerIdentity: 240,
	readPerAddress: 600,
	uploadPerIdentity: 30,
};

export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
	return {
		host: '127.0.0.1',
		port: 0,
		durations: { ...FAST_DURATIONS },
		durationJitter: { spread: 0, seed: 0 },
		timeScale: 1,
		rateLimits: { ...SPEC_RATE_LIMITS },
		moderation: 'up',
		paused: false,
		trialClosed: false,
		outputBytes: 0,
		allowLoopbackWebhooks: true,
		deliveryTimeoutMs: 10_000,
		faults: [],
		freeDailyRuns: 3,
		verbose: false,
		// SANDBOX_STRICT=1 turns strict mode on for every sandbox a process starts (tests, e2e stacks, the CLI).
		strict: process.env.SANDBOX_STRICT === '1',
		...overrides,
	};
}

export const MINUTE = 60_000;
