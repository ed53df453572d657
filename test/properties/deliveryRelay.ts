/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The network between the sandbox's webhook sender and the n8n that serves paused executions (helpers/
// waitingHost.ts): each delivery, in the order they arrive, passes, is refused (the service retries it later), is
// repeated, overtaken by the next one, held for a while or past the batch's time limit (or past n8n's own timer,
// which then ends the wait: engine.resumeByTimer), comes with a forged twin (bad signature, another status or
// another run's id), is sent to another item's address too, or finds n8n restarted: a new process, the node's
// module memory empty (jest.isolateModules), the execution as n8n saved it; or starts a second process that stays up
// beside the first, and from then on deliveries go to each in turn (queue mode's webhook processes behind a load
// balancer).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ICredentialDataDecryptedObject, IDataObject, INodeType } from 'n8n-workflow';

import { signWebhook, newWebhookSecret } from '../../sandbox/webhooks';
import { resumeByTimer, type RunResult } from '../helpers/engine';
import { startWaitingHost, type Resumed, type WaitingHost } from '../helpers/waitingHost';
import type { DeliveryAction } from './batchCase';
import { until, warpedSleep } from './warpClock';

/** An n8n process (0: the one that paused it, then in start order) and since when it served an execution. */
export interface Serving {
	process: number;
	/** Warped epoch ms. */
	since: number;
}

/** How the paused execution ended: a delivery resumed it, or n8n's timer did (the node does not run then). */
export interface PauseEnd extends Resumed {
	via: 'delivery' | 'timer';
	/** The process whose resume call ended it (a delivery's). */
	process?: number;
	/** Every process that held the execution (took its calls), from when. */
	servedBy: Serving[];
	/** When it ended (warped epoch ms). */
	at: number;
}

/** n8n ends a wait this long after waitTill at the latest (its wait tracker looks every minute). */
const TIMER_LAG_MS = 1_000;
/** How long a reordered delivery waits for the next one to overtake it. */
const REORDER_WAIT_MS = 3_000;

interface Held {
	result: RunResult;
	credentials: Record<string, IDataObject>;
	waitTill: number;
	/** n8n's timer ended the wait: the execution no longer takes calls. */
	timerFired?: boolean;
	servedBy: Serving[];
	end?: PauseEnd;
	waiters: Array<(end: PauseEnd) => void>;
}

export interface DeliveryRelay {
	/** Pass as webhookWaitingBaseUrl: the runs' webhook URLs point here. */
	baseUrl: string;
	/** Registers a paused execution with the n8n process currently serving (and n8n's timer for it). */
	hold(result: RunResult, credentials: Record<string, IDataObject>): void;
	/** How the execution ended. */
	ended(executionId: string): Promise<PauseEnd>;
	/** Resolves once no delivery is held or being handled. */
	idle(): Promise<void>;
	/** Actions taken, by name (for the soak's summary). */
	applied: Map<string, number>;
	/** Replaces the actions still to come (a follow-up execution runs without faults). */
	script(actions: DeliveryAction[]): void;
	close(): Promise<void>;
}

type Forwarded = { status: number; text: string };

/** A forged twin of a delivery: another body, signed with a secret that is not the service's. */
function forged(headers: Record<string, string>, body: IDataObject): { headers: Record<string, string>; raw: string } {
	const raw = JSON.stringify(body);
	const msgId = `msg_forged_${Math.random().toString(36).slice(2, 10)}`;
	const timestamp = Math.floor(Date.now() / 1000);
	return {
		raw,
		headers: {
			...headers,
			'webhook-id': msgId,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signWebhook(newWebhookSecret(), msgId, timestamp, raw),
		},
	};
}

/**
 * @param freshProcess the node as a newly started n8n process loads it
 * @param otherRunIds run IDs of the account that are not this delivery's (forged bodies name one)
 */
export async function startDeliveryRelay(
	actions: DeliveryAction[],
	freshProcess: () => INodeType,
	otherRunIds: () => string[],
): Promise<DeliveryRelay> {
	let script = [...actions];
	let host = await startWaitingHost();
	const hosts: WaitingHost[] = [host];
	const held = new Map<string, Held>();
	const applied = new Map<string, number>();
	let busy = 0;
	let arrivals = 0;

	const count = (name: string) => applied.set(name, (applied.get(name) ?? 0) + 1);
	const finish = (entry: Held, ended: Omit<PauseEnd, 'at' | 'servedBy'>) => {
		if (entry.end) return;
		const end = { ...ended, at: Date.now(), servedBy: [...entry.servedBy] };
		entry.end = end;
		for (const w of entry.waiters.splice(0)) w(end);
	};
	const watch = (h: WaitingHost, entry: Held) => {
		const index = hosts.indexOf(h);
		entry.servedBy.push({ process: index, since: Date.now() });
		h.hold(entry.result, entry.credentials);
		h.resumed(entry.result.executionId, 24 * 3_600_000).then(
			(r) => finish(entry, { ...r, via: 'delivery', process: index }),
			() => undefined,
		);
	};

	let turn = 0;
	async function forward(path: string, headers: Record<string, string>, raw: string): Promise<Forwarded> {
		// With a second process up, each delivery goes to the next process in turn.
		const to = second && turn++ % 2 ? second : host;
		const executionId = decodeURIComponent(new URL(path, 'http://x').pathname.split('/').pop() ?? '');
		// n8n's timer ended the wait: the execution is no longer waiting.
		if (held.get(executionId)?.timerFired) return { status: 409, text: '{"error":"finished"}' };
		busy++;
		try {
			const target = to.baseUrl + path.slice('/webhook-waiting'.length);
			const res = await fetch(target, { method: 'POST', headers, body: raw });
			return { status: res.status, text: await res.text() };
		} catch (error) {
			return { status: 502, text: String((error as Error).message) };
		} finally {
			busy--;
		}
	}

	/** The second process, started on first use; it holds every execution the first holds. */
	let second: WaitingHost | undefined;
	async function secondProcess(): Promise<WaitingHost> {
		if (!second) {
			second = await startWaitingHost({ nodeType: freshProcess() });
			hosts.push(second);
			for (const entry of held.values()) if (!entry.end) watch(second, entry);
		}
		return second;
	}

	async function restart(): Promise<void> {
		await until(() => busy === 0, 60_000, 5);
		host = await startWaitingHost({ nodeType: freshProcess() });
		hosts.push(host);
		for (const entry of held.values()) if (!entry.end) watch(host, entry);
	}

	const positionMoved = (path: string) =>
		path.replace(/mgItem=(\d+)/, (_, n: string) => `mgItem=${Number(n) === 0 ? 1 : Number(n) - 1}`);

	async function handle(path: string, headers: Record<string, string>, raw: string): Promise<Forwarded> {
		const action = script.shift() ?? 'pass';
		const arrival = ++arrivals;
		count(action);
		const executionId = decodeURIComponent(new URL(path, 'http://x').pathname.split('/').pop() ?? '');
		// An execution that never paused (it failed first) has no time limit to wait for: n8n answers at once.
		const waitTillOf = async () => {
			await until(() => held.has(executionId), 30_000, 20);
			return held.get(executionId)?.waitTill ?? 0;
		};
		let body: IDataObject = {};
		try {
			body = JSON.parse(raw) as IDataObject;
		} catch {
			body = {};
		}
		switch (action) {
			case 'refuse':
				return { status: 503, text: '{"error":"refused on the way"}' };
			case 'repeat': {
				const first = await forward(path, headers, raw);
				busy++;
				void forward(path, headers, raw).finally(() => busy--);
				return first;
			}
			case 'reorder':
				await until(() => arrivals > arrival, REORDER_WAIT_MS, 10);
				await warpedSleep(100);
				return await forward(path, headers, raw);
			case 'delay':
				await warpedSleep(5_000);
				return await forward(path, headers, raw);
			case 'delayPastLimit': {
				// waitTill is the batch's deadline plus n8n's minute of grace (pauseRuns.ts).
				const deadline = (await waitTillOf()) - 60_000;
				await until(() => Date.now() > deadline + 1_000, 600_000, 50);
				return await forward(path, headers, raw);
			}
			case 'delayPastTimer': {
				const waitTill = await waitTillOf();
				await until(() => Date.now() > waitTill + 2 * TIMER_LAG_MS, 600_000, 50);
				return await forward(path, headers, raw);
			}
			case 'forgeStatus': {
				const status = body.status === 'SUCCEEDED' ? 'FAILED' : 'SUCCEEDED';
				const twin = forged(headers, { ...body, status, outputs: [], error: null });
				await forward(path, twin.headers, twin.raw);
				return await forward(path, headers, raw);
			}
			case 'forgeId': {
				const other = otherRunIds().find((id) => id !== body.id) ?? 'gen_forged0000';
				const twin = forged(headers, { ...body, id: other });
				await forward(path, twin.headers, twin.raw);
				return await forward(path, headers, raw);
			}
			case 'misroute':
				// The genuine, signed delivery also reaches another item's address.
				await forward(positionMoved(path), headers, raw);
				return await forward(path, headers, raw);
			case 'restart':
				await restart();
				return await forward(path, headers, raw);
			case 'otherProcess':
				await secondProcess();
				return await forward(path, headers, raw);
			default:
				return await forward(path, headers, raw);
		}
	}

	let handling = 0;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			handling++;
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers)) {
				if (k.startsWith('webhook-') || k === 'content-type') headers[k] = String(v);
			}
			void handle(req.url ?? '/', headers, Buffer.concat(chunks).toString('utf8'))
				.catch((error: Error) => ({ status: 502, text: JSON.stringify({ error: error.message }) }))
				.then(({ status, text }) => {
					if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(text);
				})
				.finally(() => handling--);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting`;

	return {
		baseUrl,
		applied,
		hold(result, credentials) {
			const waitTill = result.run.data.waitTill!.getTime();
			const entry: Held = { result, credentials, waitTill, waiters: [], servedBy: [] };
			held.set(result.executionId, entry);
			watch(host, entry);
			if (second) watch(second, entry);
			// n8n's wait tracker: past waitTill it runs the execution on without the node.
			const timer = setTimeout(
				() => {
					if (entry.end) return;
					entry.timerFired = true;
					void resumeByTimer(result, credentials as Record<string, ICredentialDataDecryptedObject>).then((r) =>
						finish(entry, { items: r.items, error: r.error, via: 'timer' }),
					);
				},
				Math.max(0, entry.waitTill - Date.now()) + TIMER_LAG_MS,
			);
			timer.unref?.();
		},
		ended(executionId) {
			const entry = held.get(executionId);
			if (!entry) return Promise.reject(new Error(`execution ${executionId} is not held`));
			if (entry.end) return Promise.resolve(entry.end);
			return new Promise((resolve) => entry.waiters.push(resolve));
		},
		idle: async () => {
			await until(() => handling === 0 && busy === 0, 3_600_000, 20);
		},
		script(next) {
			script = [...next];
		},
		close: async () => {
			await Promise.all(hosts.map((h) => h.close()));
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
