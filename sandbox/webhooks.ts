/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Webhook deliveries as the spec's Events section: Standard Webhooks headers, signature over
// "<id>.<timestamp>.<raw body>", 2xx within the time limit counts, otherwise retries after
// 1 min, 5 min, 30 min, 2 h, 6 h, 24 h (scaled) with the same id; redirects are not followed.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

export const RETRY_SCHEDULE_S = [60, 300, 1800, 7200, 21_600, 86_400];
const THREE_DAYS_S = 3 * 86_400;

export function signWebhook(secret: string, msgId: string, timestamp: number, body: string): string {
	const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
	const mac = createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
	return `v1,${mac}`;
}

export function newWebhookSecret(): string {
	return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface DeliveryAttempt {
	at: number;
	status: number | null;
	/** The start of the receiver's answer (for tests that tell one 200 from another). */
	answer?: string;
	error?: string;
	timestamp: number;
	/** How long the receiver took to answer (the benchmarks' time per delivery). */
	tookMs: number;
}

export interface Delivery {
	id: string;
	msgId: string;
	ownerId: string;
	runId: string | null;
	url: string;
	endpointId: string | null;
	body: string;
	attempts: DeliveryAttempt[];
	delivered: boolean;
	/** Retries still to come; empty when delivered or given up. */
	pendingRetries: number;
}

export interface DeliveryTarget {
	url: string;
	secret: string;
	endpointId: string | null;
	ownerId: string;
}

export interface EndpointHealth {
	onResult(endpointId: string, ok: boolean, now: number): void;
	isEnabled(endpointId: string): boolean;
}

export class WebhookSender {
	readonly deliveries: Delivery[] = [];

	private timers = new Set<NodeJS.Timeout>();

	private secrets = new Map<string, string>();

	constructor(
		private readonly scale: () => number,
		private readonly timeoutMs: () => number,
		private readonly health: EndpointHealth,
	) {}

	send(target: DeliveryTarget, msgId: string, body: string, runId: string | null): Delivery {
		const delivery: Delivery = {
			id: `dlv_${randomBytes(6).toString('hex')}`,
			msgId,
			ownerId: target.ownerId,
			runId,
			url: target.url,
			endpointId: target.endpointId,
			body,
			attempts: [],
			delivered: false,
			pendingRetries: RETRY_SCHEDULE_S.length,
		};
		this.secrets.set(delivery.id, target.secret);
		this.deliveries.push(delivery);
		void this.attempt(delivery, 0);
		return delivery;
	}

	/** Sends a delivery again now, with the same webhook-id (account settings' "resend"). */
	resend(deliveryId: string): Delivery | undefined {
		const d = this.deliveries.find((x) => x.id === deliveryId);
		if (d) void this.attempt(d, -1);
		return d;
	}

	/** The last 50 deliveries of an owner, newest first. */
	recent(ownerId: string): Delivery[] {
		return this.deliveries
			.filter((d) => d.ownerId === ownerId)
			.slice(-50)
			.reverse();
	}

	stop(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
	}

	private async attempt(d: Delivery, retryIndex: number): Promise<void> {
		if (d.endpointId && !this.health.isEnabled(d.endpointId)) return;
		const timestamp = Math.floor(Date.now() / 1000);
		const secret = this.secrets.get(d.id) ?? '';
		const headers = {
			'content-type': 'application/json',
			'webhook-id': d.msgId,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signWebhook(secret, d.msgId, timestamp, d.body),
			'user-agent': 'mediagen-sandbox-webhooks/1',
		};
		const sentAt = Date.now();
		const result = await post(d.url, headers, d.body, this.timeoutMs());
		const { status, answer, error } = result;
		d.attempts.push({ at: Date.now(), status, answer, error, timestamp, tookMs: Date.now() - sentAt });
		const ok = result.status !== null && result.status >= 200 && result.status < 300;
		if (d.endpointId) this.health.onResult(d.endpointId, ok, Date.now());
		if (ok) {
			d.delivered = true;
			d.pendingRetries = 0;
			return;
		}
		if (retryIndex < 0) return; // a manual resend does not restart the schedule
		const next = retryIndex;
		if (next >= RETRY_SCHEDULE_S.length) {
			d.pendingRetries = 0;
			return;
		}
		d.pendingRetries = RETRY_SCHEDULE_S.length - next;
		const timer = setTimeout(
			() => {
				this.timers.delete(timer);
				void this.attempt(d, next + 1);
			},
			RETRY_SCHEDULE_S[next] * 1000 * this.scale(),
		);
		timer.unref?.();
		this.timers.add(timer);
	}
}

export function endpointShouldBeDisabled(firstFailureAt: number, now: number, scale: number): boolean {
	return now - firstFailureAt >= THREE_DAYS_S * 1000 * scale;
}

function post(
	url: string,
	headers: Record<string, string>,
	body: string,
	timeoutMs: number,
): Promise<{ status: number | null; answer?: string; error?: string }> {
	return new Promise((resolve) => {
		let target: URL;
		try {
			target = new URL(url);
		} catch {
			resolve({ status: null, error: 'bad url' });
			return;
		}
		const lib = target.protocol === 'https:' ? https : http;
		const req = lib.request(
			target,
			{ method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs },
			(res) => {
				let answer = '';
				res.on('data', (chunk: Buffer) => {
					if (answer.length < 300) answer += chunk.toString('utf8').slice(0, 300 - answer.length);
				});
				res.on('end', () => resolve({ status: res.statusCode ?? null, answer }));
				res.on('error', () => resolve({ status: res.statusCode ?? null }));
			},
		);
		req.on('timeout', () => {
			req.destroy();
			resolve({ status: null, error: 'timeout' });
		});
		req.on('error', (e) => resolve({ status: null, error: e.message }));
		req.end(body);
	});
}
