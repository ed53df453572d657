// The sandbox's records: models, accounts, wallets, runs, uploads, ledger and request-log entries.
export type Kind = 'image' | 'video' | 'music';
export type Status = 'QUEUED' | 'PENDING' | 'PROCESSING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';

export interface Options {
	resolution: string;
	aspect?: string;
	tier?: string;
	duration?: number;
	format?: string;
	audio?: boolean;
	style?: string;
	title?: string;
	vocal?: string;
}

export interface Model {
	id: string;
	kind: Kind;
	name: string;
	vendor: string;
	description: string;
	free_tier: boolean;
	inputs: string[];
	options: {
		aspect: string[] | null;
		tier: string[] | null;
		resolution: string[];
		duration: number[] | null;
		format: string[] | null;
		audio: boolean[] | null;
	};
	reference_images_max: number;
	defaults: Options;
	credits_at_defaults: number;
	prompt_max_chars: number;
	/** Sandbox addition (fields are only ever added in v1): whether negativePrompt is used. */
	negative_prompt?: boolean;
	/** Sandbox addition: whether endImageUrl is used. */
	end_frame?: boolean;
	music?: {
		modes: Record<string, string>;
		prompt_max_chars_by_mode: Record<string, number>;
		style_max_chars: number;
		title_max_chars: number;
		vocal: string[];
		songs_per_run: number;
	};
}

export interface OutputItem {
	url: string;
	mime: string;
	cover?: string;
	title?: string;
	lyrics?: string;
	seconds?: number;
}

export interface Account {
	id: string;
	email: string;
	tier: 'paid' | 'free';
	credits: number;
	concurrency: number;
	watermarked: boolean;
	keys: string[];
	revokedKeys: string[];
	/** Signs deliveries to per-run webhookUrl targets. */
	webhookSecret: string;
	endpoints: Endpoint[];
	freeRunsToday: { day: string; count: number };
	/**
	 * The plan's prices against the catalogue's (spec: an API key is "billed … with the plan's limits and prices"):
	 * each run costs round(catalogue price × priceFactor). 1 by default.
	 */
	priceFactor: number;
}

export interface Endpoint {
	id: string;
	url: string;
	secret: string;
	enabled: boolean;
	firstFailureAt: number | null;
	disabledNotice?: string;
}

export interface Wallet {
	anonId: string;
	credits: number;
	address: string;
	openedAt: number;
}

export type Caller =
	| { type: 'account'; account: Account; ownerId: string }
	| { type: 'anonymous'; wallet: Wallet; ownerId: string };

export interface Run {
	id: string;
	ownerId: string;
	kind: Kind;
	model: string;
	prompt: string;
	options: Options;
	cost: number;
	status: Status;
	error: string | null;
	createdAt: number;
	outputs: OutputItem[];
	refunded: number;
	requestKey?: string;
	webhookUrl?: string;
	viaApiKey: boolean;
	watermarked: boolean;
	/** When it becomes PROCESSING / finishes, in real ms. */
	startsAt: number;
	finishesAt: number;
	/** Strict mode: when a QUEUED run becomes PENDING, in real ms. */
	queuedUntil?: number;
	outcome: 'succeed' | 'fail' | 'stuck';
	request: Record<string, unknown>;
}

export interface Upload {
	id: string;
	ownerId: string;
	mime: string;
	bytes: number;
	token: string;
	expiresAt: number;
	/** Where the received body is kept. */
	filePath?: string;
	received: boolean;
	hasModerationMarker: boolean;
}

export interface LedgerEntry {
	at: number;
	ownerId: string;
	runId?: string;
	delta: number;
	reason: 'charge' | 'refund' | 'provider_refund' | 'topup';
	balance: number;
}

export interface LogEntry {
	at: number;
	method: string;
	path: string;
	status: number;
	ownerId?: string;
	body?: unknown;
	fault?: string;
	/**
	 * The answer was handed to the client's connection whole (false: the client had gone, e.g. its time-out, or cut
	 * the kept-alive connection right after it, as a client does that drops an answer arriving at its deadline).
	 */
	answerSent?: boolean;
}
