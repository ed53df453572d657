// The control surface outside /v1, for tests and demos: reset, accounts and keys, credits,
// webhook endpoints, clock and switches, faults, and read-outs of the ledger, log and deliveries.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ApiFailure } from './engine';
import { readBody, sendJson, type Sandbox } from './server';

type Json = Record<string, unknown>;

export async function handleControl(sb: Sandbox, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const { engine } = sb;
	const method = req.method ?? 'GET';
	const p = url.pathname.replace(/^\/_sandbox/, '');
	const body = (method === 'POST' ? await readBody(req) : {}) as Json;
	let m: RegExpExecArray | null;

	if (method === 'POST' && p === '/reset') {
		engine.reset();
		sb.limiter.clear();
		sb.faults.set([]);
		sb.config.faults = [];
		return sendJson(res, 200, { ok: true });
	}
	if (method === 'POST' && p === '/accounts') {
		const a = engine.createAccount(body as never);
		return sendJson(res, 201, { id: a.id, apiKey: a.keys[0], webhookSecret: a.webhookSecret, ...engine.me({ type: 'account', account: a, ownerId: a.id }) });
	}
	if (method === 'GET' && p === '/accounts') {
		return sendJson(res, 200, { accounts: [...engine.accounts.values()].map((a) => ({ id: a.id, email: a.email, tier: a.tier, credits: a.credits, concurrency: a.concurrency, endpoints: a.endpoints })) });
	}
	if ((m = /^\/accounts\/([^/]+)\/keys$/.exec(p)) && method === 'POST') {
		const a = engine.accounts.get(m[1]);
		if (!a) throw new ApiFailure(404, 'not_found', 'No such account');
		const key = `sk_${randomBytes(20).toString('hex')}`;
		a.keys.push(key);
		return sendJson(res, 201, { apiKey: key });
	}
	if ((m = /^\/accounts\/([^/]+)\/keys\/revoke$/.exec(p)) && method === 'POST') {
		const a = engine.accounts.get(m[1]);
		if (!a) throw new ApiFailure(404, 'not_found', 'No such account');
		a.revokedKeys.push(String(body.apiKey));
		return sendJson(res, 200, { ok: true });
	}
	if ((m = /^\/accounts\/([^/]+)\/credits$/.exec(p)) && method === 'POST') {
		engine.setCredits(m[1], Number(body.credits));
		return sendJson(res, 200, { credits: engine.balanceOf(m[1]) });
	}
	if ((m = /^\/accounts\/([^/]+)$/.exec(p)) && method === 'POST') {
		const a = engine.accounts.get(m[1]);
		if (!a) throw new ApiFailure(404, 'not_found', 'No such account');
		for (const k of ['concurrency', 'tier', 'watermarked'] as const) if (body[k] !== undefined) (a as unknown as Json)[k] = body[k];
		return sendJson(res, 200, { ok: true });
	}
	if ((m = /^\/accounts\/([^/]+)\/endpoints$/.exec(p)) && method === 'POST') {
		const ep = engine.addEndpoint(m[1], String(body.url), body.secret ? String(body.secret) : undefined);
		return sendJson(res, 201, ep);
	}
	if ((m = /^\/accounts\/([^/]+)\/deliveries$/.exec(p)) && method === 'GET') {
		return sendJson(res, 200, { deliveries: engine.webhooks.recent(m[1]) });
	}
	if ((m = /^\/accounts\/([^/]+)\/test-event$/.exec(p)) && method === 'POST') {
		engine.sendTestEvent(m[1]);
		return sendJson(res, 202, { ok: true });
	}
	if ((m = /^\/deliveries\/([^/]+)\/resend$/.exec(p)) && method === 'POST') {
		const d = engine.webhooks.resend(m[1]);
		if (!d) throw new ApiFailure(404, 'not_found', 'No such delivery');
		return sendJson(res, 202, { ok: true });
	}
	if (method === 'GET' && p === '/deliveries') return sendJson(res, 200, { deliveries: engine.webhooks.deliveries });
	if (method === 'POST' && p === '/config') {
		const allowed = ['durations', 'timeScale', 'rateLimits', 'moderation', 'paused', 'trialClosed', 'outputBytes', 'deliveryTimeoutMs', 'freeDailyRuns', 'allowLoopbackWebhooks'];
		for (const k of allowed) {
			if (body[k] === undefined) continue;
			const current = (sb.config as unknown as Json)[k];
			(sb.config as unknown as Json)[k] = current && typeof current === 'object' ? { ...current, ...(body[k] as Json) } : body[k];
		}
		return sendJson(res, 200, { config: { ...sb.config, faults: undefined } });
	}
	if (method === 'POST' && p === '/faults') {
		sb.config.faults = (body.faults as never) ?? [];
		sb.faults.set(sb.config.faults);
		return sendJson(res, 200, { faults: sb.config.faults });
	}
	if (method === 'GET' && p === '/ledger') return sendJson(res, 200, { ledger: engine.ledger });
	if (method === 'GET' && p === '/log') return sendJson(res, 200, { log: engine.log });
	if (method === 'GET' && p === '/runs') return sendJson(res, 200, { runs: [...engine.runs.values()].map((r) => ({ ...engine.publicRun(engine.settle(r)), ownerId: r.ownerId, requestKey: r.requestKey, request: r.request })) });
	if (method === 'POST' && p === '/anonymous-secret') return sendJson(res, 200, { webhookSecret: engine.anonymousWebhookSecret });
	throw new ApiFailure(404, 'not_found', `No control route ${method} ${url.pathname}`);
}
