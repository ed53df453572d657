// The sandbox's HTTP face: /v1 (the API), /files (outputs and uploads), /_uploads (signed PUT),
// /_sandbox (control surface for tests and demos), /openapi.yaml. JSON and CORS everywhere.
import { createHmac, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { defaultConfig, MINUTE, type SandboxConfig } from './config';
import { handleControl } from './control';
import { ApiFailure, Engine, MODERATION_MARKER, type Upload } from './engine';
import { FaultInjector } from './faults';
import { audioFile, EXTENSIONS, imageFile, videoFile } from './media';
import { RateLimiter } from './ratelimit';
import type { Caller, LogEntry } from './types';
import { ACCEPTED_UPLOAD_TYPES, generationRequestSchema, UPLOAD_CAPS, uploadRequestSchema, zodIssues } from './validate';

export interface Sandbox {
	/** The v1 root, e.g. http://127.0.0.1:4010/v1 */
	baseUrl: string;
	/** The service root (openapi.yaml, files, control surface). */
	rootUrl: string;
	engine: Engine;
	config: SandboxConfig;
	faults: FaultInjector;
	limiter: RateLimiter;
	close(): Promise<void>;
}

const CORS = {
	'access-control-allow-origin': '*',
	'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
	'access-control-allow-headers': 'authorization, content-type, x-anon-id, x-sandbox-client-ip',
	'access-control-expose-headers': 'retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset',
};

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	res.writeHead(status, { ...CORS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

function sendError(res: ServerResponse, e: ApiFailure, headers: Record<string, string> = {}): void {
	sendJson(res, e.status, { error: e.code, message: e.message, ...(e.issues ? { issues: e.issues } : {}) }, { ...headers, ...e.headers });
}

export async function readBody(req: IncomingMessage, max = 1024 * 1024): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const c of req) {
		size += (c as Buffer).length;
		if (size > max) throw new ApiFailure(413, 'too_large', 'Request body too large');
		chunks.push(c as Buffer);
	}
	const text = Buffer.concat(chunks).toString('utf8');
	if (!text) return {};
	try {
		return JSON.parse(text);
	} catch {
		throw new ApiFailure(400, 'invalid', 'The body is not valid JSON', ['body: not valid JSON']);
	}
}

function routeOf(method: string, p: string): string {
	return `${method} ${p.replace(/^\/v1/, '').replace(/\/generations\/[^/]+$/, '/generations/:id')}`;
}

export async function startSandbox(overrides: Partial<SandboxConfig> = {}): Promise<Sandbox> {
	const config = defaultConfig(overrides);
	const engine = new Engine(config);
	const faults = new FaultInjector();
	faults.set(config.faults);
	const limiter = new RateLimiter(() => MINUTE * config.timeScale);
	const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'mediagen-sandbox-'));
	const signingKey = randomBytes(32);
	const sign = (token: string) => createHmac('sha256', signingKey).update(token).digest('hex').slice(0, 32);
	const sockets = new Set<import('node:net').Socket>();

	const sandbox = {} as Sandbox;

	function rateHeaders(v: { limit: number; remaining: number; resetAt: number }): Record<string, string> {
		const seconds = Math.max(0, (v.resetAt - Date.now()) / 1000);
		return {
			'x-ratelimit-limit': String(v.limit),
			'x-ratelimit-remaining': String(v.remaining),
			// Sandbox choice: seconds until the window resets (may be fractional when the clock is scaled).
			'x-ratelimit-reset': seconds >= 1 ? String(Math.ceil(seconds)) : seconds.toFixed(3),
		};
	}

	function limit(kind: 'submit' | 'read' | 'upload', caller: Caller, address: string): Record<string, string> {
		const l = config.rateLimits;
		const buckets =
			kind === 'submit'
				? [{ key: `s:id:${caller.ownerId}`, limit: l.submitPerIdentity }, { key: `s:ip:${address}`, limit: l.submitPerAddress }]
				: kind === 'read'
					? [{ key: `r:id:${caller.ownerId}`, limit: l.readPerIdentity }, { key: `r:ip:${address}`, limit: l.readPerAddress }]
					: [{ key: `u:id:${caller.ownerId}`, limit: l.uploadPerIdentity }];
		const verdict = limiter.take(buckets);
		const headers = rateHeaders(verdict);
		if (!verdict.allowed) {
			const retry = Math.max(0.001, (verdict.resetAt - Date.now()) / 1000);
			throw new ApiFailure(429, 'rate_limited', 'Too many requests; wait before retrying', undefined, {
				...headers,
				'retry-after': retry >= 1 ? String(Math.ceil(retry)) : retry.toFixed(3),
			});
		}
		return headers;
	}

	async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, address: string, faultAfter: boolean, entry: LogEntry): Promise<number> {
		const p = url.pathname.replace(/^\/v1/, '') || '/';
		const method = req.method ?? 'GET';
		if (method === 'GET' && p === '/models') return (sendJson(res, 200, { models: engine.models }), 200);
		if (method === 'GET' && p === '/apps') return (sendJson(res, 200, { apps: engine.appsWithRoot() }), 200);
		const known = ['/me', '/generations', '/uploads'].includes(p) || /^\/generations\/[^/]+$/.test(p);
		if (!known) throw new ApiFailure(404, 'not_found', `No route ${method} /v1${p}`);
		const caller = engine.identify(header(req, 'authorization'), header(req, 'x-anon-id'), address);
		entry.ownerId = caller.ownerId;
		if (method === 'GET' && p === '/me') {
			const h = limit('read', caller, address);
			sendJson(res, 200, engine.me(caller), h);
			return 200;
		}
		if (method === 'POST' && p === '/generations') {
			const h = limit('submit', caller, address);
			const raw = await readBody(req);
			entry.body = raw;
			const parsed = generationRequestSchema.safeParse(raw);
			if (!parsed.success) throw new ApiFailure(400, 'invalid', 'The request has invalid parameters', zodIssues(parsed.error), h);
			let result;
			try {
				result = engine.createGeneration(caller, parsed.data, faultAfter);
			} catch (e) {
				if (e instanceof ApiFailure) Object.assign(e.headers, h);
				throw e;
			}
			sendJson(res, 202, { generation: engine.publicRun(result.run) }, h);
			return 202;
		}
		if (method === 'GET' && p === '/generations') {
			const h = limit('read', caller, address);
			const limitRaw = url.searchParams.get('limit');
			const beforeRaw = url.searchParams.get('before');
			const issues: string[] = [];
			const lim = limitRaw === null ? 20 : Number(limitRaw);
			if (!Number.isInteger(lim) || lim < 1 || lim > 100) issues.push('limit must be a whole number from 1 to 100');
			const before = beforeRaw === null ? undefined : Number(beforeRaw);
			if (before !== undefined && !Number.isInteger(before)) issues.push('before must be a createdAt value (whole number)');
			if (issues.length) throw new ApiFailure(400, 'invalid', 'Invalid query', issues, h);
			sendJson(res, 200, engine.listRuns(caller, lim, before), h);
			return 200;
		}
		const runMatch = /^\/generations\/([^/]+)$/.exec(p);
		if (method === 'GET' && runMatch) {
			const h = limit('read', caller, address);
			try {
				sendJson(res, 200, { generation: engine.publicRun(engine.getRun(caller, decodeURIComponent(runMatch[1]))) }, h);
			} catch (e) {
				if (e instanceof ApiFailure) Object.assign(e.headers, h);
				throw e;
			}
			return 200;
		}
		if (method === 'POST' && p === '/uploads') {
			const h = limit('upload', caller, address);
			const parsed = uploadRequestSchema.safeParse(await readBody(req));
			if (!parsed.success) throw new ApiFailure(400, 'invalid', 'Invalid upload request', zodIssues(parsed.error), h);
			const { mime, bytes } = parsed.data;
			const family = ACCEPTED_UPLOAD_TYPES[mime.toLowerCase()];
			if (!family) {
				throw new ApiFailure(400, 'invalid', `Type ${mime} is not accepted`, [`mime must be one of PNG, JPEG, WebP, MP4, MOV, MP3, WAV, M4A (${Object.keys(ACCEPTED_UPLOAD_TYPES).join(', ')})`], h);
			}
			if (bytes > UPLOAD_CAPS[family]) {
				throw new ApiFailure(413, 'too_large', `${family} files may be at most ${UPLOAD_CAPS[family] / 1024 / 1024} MB`, undefined, h);
			}
			const upId = engine.newUploadId();
			const expiresIn = Math.max(1, Math.round(300 * config.timeScale));
			const upload: Upload = {
				id: upId,
				ownerId: caller.ownerId,
				mime: mime.toLowerCase(),
				bytes,
				token: upId,
				expiresAt: Date.now() + 300_000 * config.timeScale,
				received: false,
				hasModerationMarker: false,
			};
			engine.uploads.set(upId, upload);
			sendJson(
				res,
				200,
				{
					upload_url: `${engine.rootUrl}/_uploads/${upId}?sig=${sign(upId)}`,
					url: `${engine.rootUrl}/files/uploads/${upId}.${EXTENSIONS[upload.mime] ?? 'bin'}`,
					expires_in: expiresIn,
				},
				h,
			);
			return 200;
		}
		throw new ApiFailure(404, 'not_found', `No route ${method} /v1${p}`);
	}

	async function handleUploadPut(req: IncomingMessage, res: ServerResponse, url: URL): Promise<number> {
		const upId = url.pathname.split('/').pop() ?? '';
		const upload = engine.uploads.get(upId);
		if (!upload || url.searchParams.get('sig') !== sign(upId)) throw new ApiFailure(403, 'invalid', 'The upload signature is not valid');
		if (Date.now() > upload.expiresAt) throw new ApiFailure(403, 'invalid', 'The upload slot has expired; ask for a new one with POST /uploads');
		if (upload.received) throw new ApiFailure(409, 'invalid', 'This upload slot was already used');
		const type = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
		if (type !== upload.mime) throw new ApiFailure(400, 'invalid', `Content-Type must be ${upload.mime}, as declared`, [`Content-Type: expected ${upload.mime}, got ${type || 'none'}`]);
		const filePath = path.join(uploadDir, upId);
		const out = createWriteStream(filePath);
		let size = 0;
		let marker = false;
		let tail = '';
		for await (const c of req) {
			const chunk = c as Buffer;
			size += chunk.length;
			if (size > upload.bytes) break;
			const text = tail + chunk.toString('latin1');
			if (text.includes(MODERATION_MARKER)) marker = true;
			tail = text.slice(-MODERATION_MARKER.length);
			if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
		}
		await new Promise<void>((r) => out.end(() => r()));
		if (size !== upload.bytes) {
			rmSync(filePath, { force: true });
			throw new ApiFailure(400, 'invalid', `The body has ${size > upload.bytes ? 'more' : 'fewer'} bytes than the ${upload.bytes} declared`, [`bytes: declared ${upload.bytes}`]);
		}
		upload.received = true;
		upload.filePath = filePath;
		upload.hasModerationMarker = marker;
		res.writeHead(200, { ...CORS, 'content-length': 0 });
		res.end();
		return 200;
	}

	function serveFile(req: IncomingMessage, res: ServerResponse, url: URL): number {
		const up = /^\/files\/uploads\/([a-z0-9_]+)\.[a-z0-9]+$/i.exec(url.pathname);
		if (up) {
			const upload = engine.uploads.get(up[1]);
			if (!upload?.received || !upload.filePath) throw new ApiFailure(404, 'not_found', 'No such file');
			res.writeHead(200, { ...CORS, 'content-type': upload.mime, 'content-length': upload.bytes });
			createReadStream(upload.filePath).pipe(res);
			return 200;
		}
		const out = /^\/files\/outputs\/([a-z0-9_]+)\/(\d+)(-cover)?\.([a-z0-9]+)$/i.exec(url.pathname);
		const example = /^\/examples\/([a-z0-9-]+)\.(png|mp4)$/i.exec(url.pathname);
		let file;
		if (out) {
			const run = engine.runs.get(out[1]);
			if (!run || run.status !== 'SUCCEEDED') throw new ApiFailure(404, 'not_found', 'No such file');
			const min = config.outputBytes;
			if (out[3]) file = imageFile('PNG', `${run.id}-cover-${out[2]}`);
			else if (run.kind === 'image') file = imageFile(run.options.format ?? 'PNG', run.id, min, run.watermarked ? 'watermarked' : '');
			else if (run.kind === 'video') file = videoFile(run.options.duration ?? 5, min);
			else file = audioFile(run.outputs[Number(out[2])]?.title ?? 'Song', run.outputs[Number(out[2])]?.seconds ?? 30, min);
		} else if (example) {
			file = example[2] === 'mp4' ? videoFile(5) : imageFile('PNG', example[1]);
		} else throw new ApiFailure(404, 'not_found', 'No such file');
		res.writeHead(200, { ...CORS, 'content-type': file.mime, 'content-length': file.size, 'cache-control': 'public, max-age=31536000, immutable' });
		if (req.method === 'HEAD') {
			res.end();
			return 200;
		}
		file.stream().pipe(res);
		return 200;
	}

	const server = http.createServer((req, res) => {
		void (async () => {
			const url = new URL(req.url ?? '/', engine.rootUrl || 'http://127.0.0.1');
			const method = req.method ?? 'GET';
			const address = header(req, 'x-sandbox-client-ip') ?? req.socket.remoteAddress ?? 'unknown';
			const entry: LogEntry = { at: Date.now(), method, path: url.pathname + url.search, status: 0 };
			const isApi = url.pathname === '/v1' || url.pathname.startsWith('/v1/');
			if (isApi) engine.log.push(entry);
			try {
				if (method === 'OPTIONS') {
					res.writeHead(204, CORS);
					res.end();
					entry.status = 204;
					return;
				}
				let faultAfter = false;
				if (isApi) {
					const fault = faults.pick(routeOf(method, url.pathname));
					if (fault) {
						entry.fault = fault.kind;
						if (fault.kind === 'drop') {
							req.socket.destroy();
							return;
						}
						if (fault.kind === 'slow') await new Promise((r) => setTimeout(r, fault.slowMs));
						if (fault.kind === '500') throw new ApiFailure(500, 'server_error', 'Unexpected server error (injected)');
						if (fault.kind === '503') {
							if (url.pathname === '/v1/uploads') throw new ApiFailure(503, 'storage_unavailable', 'Storage is unavailable (injected)');
							throw new ApiFailure(503, 'moderation_unavailable', 'Moderation is unavailable (injected)');
						}
						if (fault.kind === '502') {
							if (method === 'POST' && url.pathname === '/v1/generations') faultAfter = true;
							else throw new ApiFailure(502, 'provider', 'Upstream failure (injected)');
						}
						if (fault.kind === '404') throw new ApiFailure(404, 'not_found', 'No such record (injected)');
						if (fault.kind === '429') {
							throw new ApiFailure(429, 'rate_limited', 'Too many requests (injected)', undefined, {
								'retry-after': String(fault.retryAfterSeconds),
							});
						}
						if (fault.kind === 'malformed') {
							// Handle the request, then answer with its status and an empty object (a broken proxy).
							const sink = new http.ServerResponse(req);
							const status = await handleApi(req, sink, url, address, false, entry).catch((e) =>
								e instanceof ApiFailure ? e.status : 500,
							);
							entry.status = status;
							sendJson(res, status, {});
							return;
						}
						if (fault.kind === 'drop_after') {
							// Process the request, then lose the answer: the client must retry with the same requestKey.
							const sink = new http.ServerResponse(req);
							entry.status = await handleApi(req, sink, url, address, false, entry).catch((e) => (e instanceof ApiFailure ? e.status : 500));
							req.socket.destroy();
							return;
						}
					}
					entry.status = await handleApi(req, res, url, address, faultAfter, entry);
					return;
				}
				if (method === 'PUT' && url.pathname.startsWith('/_uploads/')) return void (entry.status = await handleUploadPut(req, res, url));
				if ((method === 'GET' || method === 'HEAD') && (url.pathname.startsWith('/files/') || url.pathname.startsWith('/examples/'))) return void serveFile(req, res, url);
				if (method === 'GET' && url.pathname === '/openapi.yaml') {
					const text = readFileSync(path.join(__dirname, 'openapi.yaml'), 'utf8');
					res.writeHead(200, { ...CORS, 'content-type': 'application/yaml' });
					res.end(text);
					return;
				}
				if (url.pathname.startsWith('/_sandbox/')) return void (await handleControl(sandbox, req, res, url));
				if (method === 'GET' && url.pathname.startsWith('/apps/')) {
					res.writeHead(200, { ...CORS, 'content-type': 'text/html' });
					res.end(`<!doctype html><title>App</title><p>App page ${url.pathname}${url.search}</p>`);
					return;
				}
				throw new ApiFailure(404, 'not_found', `No route ${method} ${url.pathname}`);
			} catch (e) {
				const failure = e instanceof ApiFailure ? e : new ApiFailure(500, 'server_error', 'Unexpected server error');
				if (!(e instanceof ApiFailure) && config.verbose) console.error(e);
				entry.status = failure.status;
				if (!res.headersSent && !res.destroyed) sendError(res, failure);
			} finally {
				if (config.verbose) console.log(`${method} ${url.pathname} → ${entry.status}`);
			}
		})();
	});
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
	const { port } = server.address() as AddressInfo;
	engine.rootUrl = `http://${config.host}:${port}`;
	Object.assign(sandbox, {
		baseUrl: `${engine.rootUrl}/v1`,
		rootUrl: engine.rootUrl,
		engine,
		config,
		faults,
		limiter,
		close: async () => {
			engine.stopTimers();
			for (const s of sockets) s.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			rmSync(uploadDir, { recursive: true, force: true });
		},
	});
	return sandbox;
}

function header(req: IncomingMessage, name: string): string | undefined {
	const v = req.headers[name];
	return Array.isArray(v) ? v[0] : v;
}
