/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A stand-in for WordPress's REST API, enough for the WordPress recipe: multipart media uploads
// (`POST /wp-json/wp/v2/media`) and draft posts (`POST /wp-json/wp/v2/posts`), recorded as received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CmsUpload {
	authorization: string;
	field: string;
	fileName: string;
	type: string;
	bytes: Buffer;
	fields: Record<string, string>;
}

export interface CmsReceiver {
	baseUrl: string;
	uploads: CmsUpload[];
	posts: Array<{ authorization: string; body: Record<string, unknown> }>;
	close(): Promise<void>;
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export async function startCmsReceiver(): Promise<CmsReceiver> {
	const receiver: CmsReceiver = { baseUrl: '', uploads: [], posts: [], close: async () => {} };
	const server = http.createServer((req, res) => {
		void (async () => {
			const body = await bodyOf(req);
			const authorization = req.headers.authorization ?? '';
			const answer = (status: number, json: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(json));
			};
			if (req.method === 'POST' && req.url === '/wp-json/wp/v2/media') {
				// The platform's own multipart parser (undici), not one written for the test.
				const form = (await new Response(new Uint8Array(body), {
					headers: { 'content-type': req.headers['content-type'] ?? '' },
				}).formData()) as unknown as Iterable<[string, string | File]>;
				const fields: Record<string, string> = {};
				for (const [name, value] of form) {
					if (typeof value === 'string') fields[name] = value;
					else
						receiver.uploads.push({
							authorization,
							field: name,
							fileName: value.name,
							type: value.type,
							bytes: Buffer.from(await value.arrayBuffer()),
							fields,
						});
				}
				const upload = receiver.uploads[receiver.uploads.length - 1];
				answer(201, { id: receiver.uploads.length, source_url: `${receiver.baseUrl}/media/${upload?.fileName}` });
				return;
			}
			if (req.method === 'POST' && req.url?.startsWith('/wp-json/wp/v2/posts')) {
				const post = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
				receiver.posts.push({ authorization, body: post });
				answer(201, { id: 100 + receiver.posts.length, ...post });
				return;
			}
			answer(404, { code: 'rest_no_route' });
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
	return receiver;
}
