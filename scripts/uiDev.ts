/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run dev` as the editor tests use it: started on free ports with a fresh n8n user folder, its
// printed block (editor URL, login, sandbox, API key, trigger URL) read back, stopped as a process group.
// MEDIAGEN_UI_ATTACH=<file holding the output of a running `npm run dev`> reuses that one instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freePort, REPO } from './realN8n';

export interface DevStack {
	editorUrl: string;
	email: string;
	password: string;
	/** The sandbox's v1 root. */
	apiBase: string;
	apiKey: string;
	triggerUrl: string;
	/** Everything `npm run dev` printed so far. */
	output(): string;
	stop(): Promise<void>;
}

/** Reads the block `npm run dev` prints once everything is up. */
export function parseDevOutput(text: string): Omit<DevStack, 'output' | 'stop'> | undefined {
	const editor = /n8n editor\s+(http\S+)\s+login (\S+) \/ (\S+)/.exec(text);
	const sandbox = /Sandbox API\s+(http\S+)/.exec(text);
	const key = /API key\s+(sk_[0-9a-f]+)/.exec(text);
	const trigger = /Trigger URL\s+(http\S+)/.exec(text);
	if (!editor || !sandbox || !key || !trigger || !text.includes('Press Ctrl+C')) return undefined;
	return {
		editorUrl: editor[1],
		email: editor[2],
		password: editor[3],
		apiBase: sandbox[1],
		apiKey: key[1],
		triggerUrl: trigger[1],
	};
}

export async function startDev(timeoutMs = 15 * 60_000): Promise<DevStack> {
	const attach = process.env.MEDIAGEN_UI_ATTACH;
	if (attach) {
		const parsed = parseDevOutput(readFileSync(attach, 'utf8'));
		if (!parsed) throw new Error(`${attach} does not hold the output of a running npm run dev`);
		return { ...parsed, output: () => readFileSync(attach, 'utf8'), stop: async () => undefined };
	}
	const env = {
		...process.env,
		N8N_PORT: String(await freePort()),
		SANDBOX_PORT: String(await freePort()),
		MEDIAGEN_DEV_FOLDER: mkdtempSync(path.join(os.tmpdir(), 'mediagen-dev-ui-')),
	};
	// Its own process group: npm, ts-node, n8n and its task runner stop together.
	const child: ChildProcess = spawn('npm', ['run', 'dev'], {
		cwd: REPO,
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let text = '';
	child.stdout!.on('data', (b: Buffer) => (text = (text + b.toString()).slice(-200_000)));
	child.stderr!.on('data', (b: Buffer) => (text = (text + b.toString()).slice(-200_000)));
	const stop = async () => {
		if (child.exitCode !== null || child.pid === undefined) return;
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		process.kill(-child.pid, 'SIGINT');
		const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 20_000);
		await exited;
		clearTimeout(timer);
		// Whatever of the group is still running (n8n may outlive npm by a moment).
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			// the group is gone
		}
	};
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const parsed = parseDevOutput(text);
		if (parsed) return { ...parsed, output: () => text, stop };
		if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}:\n${text.slice(-4000)}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`npm run dev printed no login within ${timeoutMs / 1000} s:\n${text.slice(-4000)}`);
		}
		await new Promise((r) => setTimeout(r, 1000));
	}
}
