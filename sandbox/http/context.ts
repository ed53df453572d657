/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What every handler is given: the sandbox's shared state (SandboxContext) and the request at hand (Exchange).
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { MINUTE, type SandboxConfig } from '../config';
import { Engine } from '../engine';
import { FaultInjector } from '../faults';
import { RateLimiter } from '../ratelimit';
import type { LogEntry } from '../types';

export interface SandboxContext {
	engine: Engine;
	config: SandboxConfig;
	faults: FaultInjector;
	limiter: RateLimiter;
	/** Where received upload bodies are kept; removed when the sandbox closes. */
	uploadDir: string;
	/** The `sig` of an upload slot's PUT URL, so only the URL handed out can fill the slot. */
	signUpload(uploadId: string): string;
	/** Requests cut unanswered that the sandbox has still to handle (the fault "late"). */
	pendingLate: Set<Promise<void>>;
}

/** One request and its answer, with what the router learnt about it. */
export interface Exchange {
	req: IncomingMessage;
	res: ServerResponse;
	url: URL;
	method: string;
	/** The client address (x-sandbox-client-ip lets tests act as several addresses). */
	address: string;
	/** The request-log line of this request; /v1 requests are pushed to the engine's log. */
	entry: LogEntry;
}

/** A named handler; the status it returns is written to the request's log line. */
export type RouteHandler = (
	ctx: SandboxContext,
	exchange: Exchange,
	params: Record<string, string>,
) => Promise<number | void>;

export function createSandboxContext(config: SandboxConfig): SandboxContext {
	const faults = new FaultInjector();
	faults.set(config.faults);
	// A fresh key per sandbox: upload URLs of one sandbox are worthless in another.
	const signingKey = randomBytes(32);
	return {
		engine: new Engine(config),
		config,
		faults,
		// Windows follow the clock scale as it is at each request, so tests may change it mid-run.
		limiter: new RateLimiter(() => MINUTE * config.timeScale),
		uploadDir: mkdtempSync(path.join(os.tmpdir(), 'mediagen-sandbox-')),
		signUpload: (uploadId) => createHmac('sha256', signingKey).update(uploadId).digest('hex').slice(0, 32),
		pendingLate: new Set(),
	};
}
