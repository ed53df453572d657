/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A scripted OpenAI-compatible chat model on 127.0.0.1, for n8n's own AI Agent with its OpenAI Chat Model
// (the credential's Base URL points here). POST /v1/chat/completions answers from a script: a function of the
// conversation so far that returns either tool calls or a final text. Answers plain JSON or, when the request
// asks for `stream`, server-sent chunks as OpenAI sends them. Every request body is kept, so a test can read
// the tool list the agent sent (names, descriptions, parameter schemas) and the tool results it passed back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: string;
	content?: string | null | Array<{ type: string; text?: string }>;
	name?: string;
	tool_call_id?: string;
	tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
}

/** What the script answers: call these tools (name and arguments), or say this text and stop. */
export type ScriptedTurn = { toolCalls: Array<{ name: string; args: Record<string, unknown> }> } | { text: string };

export type Script = (request: ChatRequest) => ScriptedTurn;

export interface ScriptedChatModel {
	/** The Base URL to put in n8n's OpenAI credential (ends with /v1). */
	baseUrl: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

/** The text of a message, whichever shape the client sent it in. */
export function textOf(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content)) return message.content.map((c) => c.text ?? '').join('');
	return '';
}

/** The results of tool calls the agent passed back so far, by tool name, oldest first. */
export function toolResults(request: ChatRequest): Array<{ name: string; text: string }> {
	const names = new Map<string, string>();
	for (const m of request.messages) for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name);
	return request.messages
		.filter((m) => m.role === 'tool')
		.map((m) => ({ name: names.get(String(m.tool_call_id)) ?? String(m.name), text: textOf(m) }));
}

let callCounter = 0;

function completion(model: string, turn: ScriptedTurn): Record<string, unknown> {
	const message =
		'text' in turn
			? { role: 'assistant', content: turn.text }
			: {
					role: 'assistant',
					content: null,
					tool_calls: turn.toolCalls.map((c) => ({
						id: `call_${++callCounter}`,
						type: 'function',
						function: { name: c.name, arguments: JSON.stringify(c.args) },
					})),
				};
	return {
		id: `chatcmpl-${callCounter}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, finish_reason: 'text' in turn ? 'stop' : 'tool_calls' }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same answer as OpenAI's streamed chunks: the whole delta in one chunk, then the finish reason. */
function streamed(res: ServerResponse, body: Record<string, unknown>): void {
	const [choice] = body.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>;
	const base = { id: body.id, object: 'chat.completion.chunk', created: body.created, model: body.model };
	const toolCalls = (choice.message.tool_calls as Array<Record<string, unknown>> | undefined)?.map((c, index) => ({
		index,
		...c,
	}));
	const delta = {
		role: 'assistant',
		content: choice.message.content ?? null,
		...(toolCalls ? { tool_calls: toolCalls } : {}),
	};
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
	res.write(
		`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], usage: body.usage })}\n\n`,
	);
	res.end('data: [DONE]\n\n');
}

async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

export async function startScriptedChatModel(script: Script): Promise<ScriptedChatModel> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((req, res) => {
		void (async () => {
			const raw = await readBody(req);
			if (req.method === 'GET' && req.url?.endsWith('/models')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model' }] }));
				return;
			}
			if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
				return;
			}
			const request = JSON.parse(raw) as ChatRequest;
			requests.push(request);
			let body: Record<string, unknown>;
			try {
				body = completion(request.model, script(request));
			} catch (error) {
				res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `script failed: ${String(error)}` } }));
				return;
			}
			if (request.stream) return streamed(res, body);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
