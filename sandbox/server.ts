/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The sandbox's HTTP face: /v1 (the API), /files (outputs and uploads), /_uploads (signed PUT),
// /_sandbox (control surface for tests and demos), /openapi.yaml. JSON and CORS everywhere.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { rmSync } from 'node:fs';

import { ApiFailure } from './apiFailure';
import { defaultConfig, type SandboxConfig } from './config';
import { handleControl } from './control';
import type { Engine } from './engine';
import type { FaultInjector } from './faults';
import { createSandboxContext, type Exchange, type RouteHandler, type SandboxContext } from './http/context';
import { CORS, requestHeader, sendError } from './http/respond';
import { findRoute, route, type Route } from './http/router';
import type { RateLimiter } from './ratelimit';
import { handleApiRequest } from './routes/api';
import { serveAppPage, serveFile, serveOpenapi } from './routes/files';
import { receiveUpload } from './routes/uploads';
import type { LogEntry } from './types';

export { readBody, sendJson } from './http/respond';

export interface Sandbox {
	/** The v1 root, e.g. http://127.0.0.1:4010/v1 */
	baseUrl: string;
	/** The service root (openapi.yaml, files, control surface). */
	rootUrl: string;
	engine: Engine;
	config: SandboxConfig;
	faults: FaultInjector;
	limiter: RateLimiter;
	/** Resolves once every request cut unanswered by the fault "late" has been handled (and charged, if it was). */
	lateRequestsHandled(): Promise<void>;
	close(): Promise<void>;
}

/** Routes outside /v1 (those have their own router, with fault injection and the request log). */
const SITE_ROUTES: Route<RouteHandler>[] = [
	route('PUT', '/_uploads/*', receiveUpload),
	route(['GET', 'HEAD'], '/files/*', serveFile),
	route(['GET', 'HEAD'], '/examples/*', serveFile),
	route('GET', '/openapi.yaml', serveOpenapi),
	route('*', '/_sandbox/*', handleControl),
	route('GET', '/apps/*', serveAppPage),
];

function isApiPath(pathname: string): boolean {
	return pathname === '/v1' || pathname.startsWith('/v1/');
}

async function routeRequest(ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const { method, res, url, entry } = exchange;
	if (method === 'OPTIONS') {
		res.writeHead(204, CORS);
		res.end();
		entry.status = 204;
		return;
	}
	if (isApiPath(url.pathname)) return handleApiRequest(ctx, exchange);
	const { match } = findRoute(SITE_ROUTES, method, url.pathname);
	if (!match) throw new ApiFailure(404, 'not_found', `No route ${method} ${url.pathname}`);
	const status = await match.route.handler(ctx, exchange, match.params);
	if (status !== undefined) entry.status = status;
}

/** A connection's last answer while no request has followed it, and whether its client asked to keep it open. */
interface Connection {
	lastAnswer?: { entry: LogEntry; at: number };
	keptAlive?: boolean;
}
const connections = new WeakMap<Socket, Connection>();
/** A kept-alive connection cut this soon (real ms) after an answer, with no request after it, dropped that answer. */
const UNREAD_WINDOW_MS = 100;

// An answer that arrives as the client's deadline passes is dropped: the client closes the connection with the
// answer unread, which resets it, or (keeping connections open) cuts it at once with no request after. The log
// then says the answer went unread, as the ledger oracles need: the client never learnt the run it names.
function connectionOf(socket: Socket): Connection {
	const known = connections.get(socket);
	if (known) return known;
	const connection: Connection = {};
	socket.once('close', (reset: boolean) => {
		const last = connection.lastAnswer;
		if (last && (reset || (connection.keptAlive && Date.now() - last.at <= UNREAD_WINDOW_MS)))
			last.entry.answerSent = false;
	});
	connections.set(socket, connection);
	return connection;
}

/** Answers one request; any failure becomes an error answer, unless the answer has already begun. */
async function handleRequest(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const { engine, config } = ctx;
	const url = new URL(req.url ?? '/', engine.rootUrl || 'http://127.0.0.1');
	const method = req.method ?? 'GET';
	const address = requestHeader(req, 'x-sandbox-client-ip') ?? req.socket.remoteAddress ?? 'unknown';
	const entry: LogEntry = { at: Date.now(), method, path: url.pathname + url.search, status: 0 };
	if (isApiPath(url.pathname)) engine.log.push(entry);
	// Whether the client was still there for the answer: one that timed out first never read the run it names.
	const connection = connectionOf(req.socket);
	connection.lastAnswer = undefined;
	connection.keptAlive = res.shouldKeepAlive;
	// The client closes the connection, not the sandbox, so its way of closing says whether it read the answer.
	res.shouldKeepAlive = true;
	res.on('finish', () => {
		entry.answerSent = true;
		connection.lastAnswer = { entry, at: Date.now() };
	});
	res.on('close', () => (entry.answerSent ??= false));
	try {
		await routeRequest(ctx, { req, res, url, method, address, entry });
	} catch (e) {
		const failure = e instanceof ApiFailure ? e : new ApiFailure(500, 'server_error', 'Unexpected server error');
		if (!(e instanceof ApiFailure) && config.verbose) console.error(e);
		entry.status = failure.status;
		if (!res.headersSent && !res.destroyed) sendError(res, failure);
	} finally {
		if (config.verbose) console.log(`${method} ${url.pathname} → ${entry.status}`);
	}
}

export async function startSandbox(overrides: Partial<SandboxConfig> = {}): Promise<Sandbox> {
	const config = defaultConfig(overrides);
	const ctx = createSandboxContext(config);
	const { engine } = ctx;
	const server = http.createServer((req, res) => void handleRequest(ctx, req, res));
	// Open connections are cut on close, so keep-alive clients cannot hold the server open.
	const sockets = new Set<Socket>();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
	const { port } = server.address() as AddressInfo;
	engine.rootUrl = `http://${config.host}:${port}`;
	return {
		baseUrl: `${engine.rootUrl}/v1`,
		rootUrl: engine.rootUrl,
		engine,
		config,
		faults: ctx.faults,
		limiter: ctx.limiter,
		lateRequestsHandled: async () => {
			while (ctx.pendingLate.size) await Promise.all([...ctx.pendingLate]);
		},
		close: async () => {
			engine.stopTimers();
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			rmSync(ctx.uploadDir, { recursive: true, force: true });
		},
	};
}
