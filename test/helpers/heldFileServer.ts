/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// A file server on 127.0.0.1 that holds every download until the test lets it go: shows that something
// happens before a download ends, without timing anything.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { RunRecord } from '../../nodes/shared/records';
import { runRecord } from './runRecord';

export interface HeldFileServer {
	url: string;
	/** Whether a download has been asked for. */
	requested(): boolean;
	/** Sends the file to every held and later request. */
	release(): void;
	close(): Promise<void>;
}

export async function startHeldFileServer(bytes: number, mime: string): Promise<HeldFileServer> {
	let release: () => void = () => undefined;
	const released = new Promise<void>((r) => (release = r));
	let requested = false;
	const server = http.createServer((_req, res) => {
		requested = true;
		void released.then(() => res.writeHead(200, { 'content-type': mime }).end(Buffer.alloc(bytes, 1)));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`,
		requested: () => requested,
		release,
		close: async () => {
			release();
			await new Promise<void>((r) => server.close(() => r()));
		},
	};
}

/** A finished video run whose one output is the held file. */
export function heldVideoRun(files: HeldFileServer, id: string): RunRecord {
	return runRecord({ id, kind: 'video', status: 'SUCCEEDED', outputs: [{ url: files.url, mime: 'video/mp4' }] });
}
