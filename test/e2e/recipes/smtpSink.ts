/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A minimal SMTP server for the e-mail recipe: accepts every message without TLS or login and keeps it,
// split into its text body and attachments (enough MIME for what nodemailer writes).
import net from 'node:net';

export interface SinkMessage {
	from: string;
	to: string[];
	text: string;
	/** The HTML body (n8n's Send and Wait e-mails have only this). */
	html: string;
	attachments: Array<{ fileName: string; type: string; bytes: Buffer }>;
}

export interface SmtpSink {
	port: number;
	messages: SinkMessage[];
	close(): Promise<void>;
}

interface MimePart {
	headers: Record<string, string>;
	body: string;
}

function parsePart(raw: string): MimePart {
	const split = raw.indexOf('\r\n\r\n');
	const head = split < 0 ? raw : raw.slice(0, split);
	const headers: Record<string, string> = {};
	// Folded header lines continue with whitespace.
	for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
		const colon = line.indexOf(':');
		if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return { headers, body: split < 0 ? '' : raw.slice(split + 4) };
}

function decode(part: MimePart): Buffer {
	const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
	if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64');
	if (encoding === 'quoted-printable') {
		const soft = part.body.replace(/=\r\n/g, '');
		return Buffer.from(
			soft.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
			'latin1',
		);
	}
	return Buffer.from(part.body, 'utf8');
}

/** The leaf parts of a MIME message, depth first. */
function leaves(part: MimePart): MimePart[] {
	const boundary = /boundary="?([^";]+)"?/i.exec(part.headers['content-type'] ?? '')?.[1];
	if (!boundary) return [part];
	return part.body
		.split(`--${boundary}`)
		.slice(1)
		.filter((chunk) => !chunk.startsWith('--'))
		.flatMap((chunk) => leaves(parsePart(chunk.replace(/^\r\n/, ''))));
}

export function parseMessage(raw: string, from: string, to: string[]): SinkMessage {
	const message: SinkMessage = { from, to, text: '', html: '', attachments: [] };
	for (const part of leaves(parsePart(raw))) {
		const disposition = part.headers['content-disposition'] ?? '';
		const type = (part.headers['content-type'] ?? 'text/plain').split(';')[0].trim();
		if (disposition.startsWith('attachment')) {
			const fileName = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? '';
			message.attachments.push({ fileName, type, bytes: decode(part) });
		} else if (type === 'text/plain') message.text += decode(part).toString('utf8');
		else if (type === 'text/html') message.html += decode(part).toString('utf8');
	}
	return message;
}

export async function startSmtpSink(): Promise<SmtpSink> {
	const sink: SmtpSink = { port: 0, messages: [], close: async () => {} };
	const server = net.createServer((socket) => {
		let buffer = '';
		let inData = false;
		let from = '';
		let to: string[] = [];
		const reply = (line: string) => socket.write(`${line}\r\n`);
		reply('220 sink.local ESMTP ready');
		socket.on('data', (chunk: Buffer) => {
			buffer += chunk.toString('latin1');
			for (;;) {
				if (inData) {
					const end = buffer.indexOf('\r\n.\r\n');
					if (end < 0) return;
					// Undo dot-stuffing: a line starting with a dot was sent with two.
					const raw = buffer.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
					buffer = buffer.slice(end + 5);
					inData = false;
					sink.messages.push(parseMessage(raw, from, to));
					reply('250 OK: queued');
					continue;
				}
				const eol = buffer.indexOf('\r\n');
				if (eol < 0) return;
				const line = buffer.slice(0, eol);
				buffer = buffer.slice(eol + 2);
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'EHLO' || verb === 'HELO') reply('250 sink.local');
				else if (verb === 'MAIL') {
					from = /<([^>]*)>/.exec(line)?.[1] ?? '';
					to = [];
					reply('250 OK');
				} else if (verb === 'RCPT') {
					to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
					reply('250 OK');
				} else if (verb === 'DATA') {
					inData = true;
					reply('354 End data with <CR><LF>.<CR><LF>');
				} else if (verb === 'QUIT') {
					reply('221 Bye');
					socket.end();
				} else reply('250 OK');
			}
		});
		socket.on('error', () => socket.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	sink.port = (server.address() as net.AddressInfo).port;
	sink.close = () => new Promise((resolve) => server.close(() => resolve()));
	return sink;
}
