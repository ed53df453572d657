/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Reading requests and writing answers: JSON bodies both ways, error answers, and the CORS headers
// every answer carries.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ApiFailure } from '../apiFailure';

export const CORS = {
	'access-control-allow-origin': '*',
	'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
	'access-control-allow-headers': 'authorization, content-type, x-anon-id, x-sandbox-client-ip',
	'access-control-expose-headers': 'retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset',
};

export function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		...CORS,
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

export function sendError(res: ServerResponse, failure: ApiFailure): void {
	const body = { error: failure.code, message: failure.message };
	sendJson(res, failure.status, failure.issues ? { ...body, issues: failure.issues } : body, failure.headers);
}

/** The JSON body of a request ({} when empty); refuses bodies over `max` bytes. */
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

/** A request header's first value. */
export function requestHeader(req: IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}
