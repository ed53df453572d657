/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The control surface outside /v1, for tests and demos: reset, accounts and keys, credits,
// webhook endpoints, clock and switches, faults, and read-outs of the ledger, log and deliveries.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { ApiFailure } from './apiFailure';
import type { FaultRule } from './config';
import type { Exchange, SandboxContext } from './http/context';
import { readBody, sendJson } from './http/respond';
import { findRoute, route, type Route } from './http/router';
import type { Account } from './types';

type Json = Record<string, unknown>;

interface ControlCall {
	ctx: SandboxContext;
	res: ServerResponse;
	params: Record<string, string>;
	/** The JSON body of a POST; {} otherwise. */
	body: Json;
}

type ControlHandler = (call: ControlCall) => void;

/** Settings POST /_sandbox/config may change; objects among them are merged, not replaced. */
const CHANGEABLE_SETTINGS = [
	'durations',
	'timeScale',
	'rateLimits',
	'moderation',
	'paused',
	'trialClosed',
	'outputBytes',
	'deliveryTimeoutMs',
	'freeDailyRuns',
	'allowLoopbackWebhooks',
];

function accountOf({ ctx, params }: ControlCall): Account {
	const account = ctx.engine.accounts.get(params.id);
	if (!account) throw new ApiFailure(404, 'not_found', 'No such account');
	return account;
}

function reset({ ctx, res }: ControlCall): void {
	ctx.engine.reset();
	ctx.limiter.clear();
	ctx.faults.set([]);
	ctx.config.faults = [];
	sendJson(res, 200, { ok: true });
}

function createAccount({ ctx, res, body }: ControlCall): void {
	const account = ctx.engine.createAccount(body as never);
	const me = ctx.engine.me({ type: 'account', account, ownerId: account.id });
	sendJson(res, 201, { id: account.id, apiKey: account.keys[0], webhookSecret: account.webhookSecret, ...me });
}

function listAccounts({ ctx, res }: ControlCall): void {
	const accounts = [...ctx.engine.accounts.values()].map((a) => ({
		id: a.id,
		email: a.email,
		tier: a.tier,
		credits: a.credits,
		concurrency: a.concurrency,
		endpoints: a.endpoints,
	}));
	sendJson(res, 200, { accounts });
}

function addKey(call: ControlCall): void {
	const key = `sk_${randomBytes(20).toString('hex')}`;
	accountOf(call).keys.push(key);
	sendJson(call.res, 201, { apiKey: key });
}

function revokeKey(call: ControlCall): void {
	accountOf(call).revokedKeys.push(String(call.body.apiKey));
	sendJson(call.res, 200, { ok: true });
}

function setCredits({ ctx, res, params, body }: ControlCall): void {
	ctx.engine.setCredits(params.id, Number(body.credits));
	sendJson(res, 200, { credits: ctx.engine.balanceOf(params.id) });
}

function updateAccount(call: ControlCall): void {
	const account = accountOf(call);
	for (const k of ['concurrency', 'tier', 'watermarked', 'priceFactor'] as const) {
		if (call.body[k] !== undefined) (account as unknown as Json)[k] = call.body[k];
	}
	sendJson(call.res, 200, { ok: true });
}

function addEndpoint({ ctx, res, params, body }: ControlCall): void {
	const endpoint = ctx.engine.addEndpoint(params.id, String(body.url), body.secret ? String(body.secret) : undefined);
	sendJson(res, 201, endpoint);
}

function accountDeliveries({ ctx, res, params }: ControlCall): void {
	sendJson(res, 200, { deliveries: ctx.engine.webhooks.recent(params.id) });
}

function sendTestEvent({ ctx, res, params }: ControlCall): void {
	ctx.engine.sendTestEvent(params.id);
	sendJson(res, 202, { ok: true });
}

function resendDelivery({ ctx, res, params }: ControlCall): void {
	if (!ctx.engine.webhooks.resend(params.id)) throw new ApiFailure(404, 'not_found', 'No such delivery');
	sendJson(res, 202, { ok: true });
}

function changeConfig({ ctx, res, body }: ControlCall): void {
	const settings = ctx.config as unknown as Json;
	for (const k of CHANGEABLE_SETTINGS) {
		if (body[k] === undefined) continue;
		const current = settings[k];
		settings[k] = current && typeof current === 'object' ? { ...current, ...(body[k] as Json) } : body[k];
	}
	sendJson(res, 200, { config: { ...ctx.config, faults: undefined } });
}

function setFaults({ ctx, res, body }: ControlCall): void {
	ctx.config.faults = (body.faults as FaultRule[] | undefined) ?? [];
	ctx.faults.set(ctx.config.faults);
	sendJson(res, 200, { faults: ctx.config.faults });
}

function listDeliveries({ ctx, res }: ControlCall): void {
	sendJson(res, 200, { deliveries: ctx.engine.webhooks.deliveries });
}

function showLedger({ ctx, res }: ControlCall): void {
	sendJson(res, 200, { ledger: ctx.engine.ledger });
}

function showLog({ ctx, res }: ControlCall): void {
	sendJson(res, 200, { log: ctx.engine.log });
}

/** The secret that signs deliveries of anonymous runs to their webhookUrl. */
function showAnonymousSecret({ ctx, res }: ControlCall): void {
	sendJson(res, 200, { webhookSecret: ctx.engine.anonymousWebhookSecret });
}

/** Marks an anonymous id as one the service no longer recognises: it gets unknown_anon_id from then on. */
function markAnonIdUnknown({ ctx, res, body }: ControlCall): void {
	ctx.engine.unknownAnonIds.add(String(body.anonId));
	sendJson(res, 200, { ok: true });
}

function listRuns({ ctx, res }: ControlCall): void {
	const { engine } = ctx;
	const runs = [...engine.runs.values()].map((r) => ({
		...engine.publicRun(engine.settle(r)),
		ownerId: r.ownerId,
		requestKey: r.requestKey,
		request: r.request,
	}));
	sendJson(res, 200, { runs });
}

const CONTROL_ROUTES: Route<ControlHandler>[] = [
	route('POST', '/reset', reset),
	route('POST', '/accounts', createAccount),
	route('GET', '/accounts', listAccounts),
	route('POST', '/accounts/:id/keys', addKey),
	route('POST', '/accounts/:id/keys/revoke', revokeKey),
	route('POST', '/accounts/:id/credits', setCredits),
	route('POST', '/accounts/:id', updateAccount),
	route('POST', '/accounts/:id/endpoints', addEndpoint),
	route('GET', '/accounts/:id/deliveries', accountDeliveries),
	route('POST', '/accounts/:id/test-event', sendTestEvent),
	route('POST', '/deliveries/:id/resend', resendDelivery),
	route('GET', '/deliveries', listDeliveries),
	route('POST', '/config', changeConfig),
	route('POST', '/faults', setFaults),
	route('GET', '/ledger', showLedger),
	route('GET', '/log', showLog),
	route('GET', '/runs', listRuns),
	route('POST', '/anonymous-secret', showAnonymousSecret),
	route('POST', '/anonymous-ids/unknown', markAnonIdUnknown),
];

/** Any method on /_sandbox/…; every POST body is read first, so bad JSON is refused before the route is. */
export async function handleControl(ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const { method, req, res, url } = exchange;
	const path = url.pathname.replace(/^\/_sandbox/, '');
	const body = (method === 'POST' ? await readBody(req) : {}) as Json;
	const { match } = findRoute(CONTROL_ROUTES, method, path);
	if (!match) throw new ApiFailure(404, 'not_found', `No control route ${method} ${url.pathname}`);
	match.route.handler({ ctx, res, params: match.params, body });
}
