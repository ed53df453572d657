// Accounts' webhook endpoints: adding one, switching it off after 3 days of failures, and who hears of a
// finished run (its own webhookUrl alone, or else the account's enabled endpoints).
import { randomBytes } from 'node:crypto';

import { ApiFailure } from './apiFailure';
import type { Account, Endpoint, Run } from './types';
import { checkWebhookUrl } from './validate';
import { endpointShouldBeDisabled, newWebhookSecret, type DeliveryTarget } from './webhooks';

const MAX_ENDPOINTS = 5;

export function addEndpointTo(
	account: Account,
	url: string,
	secret: string | undefined,
	allowLoopback: boolean,
): Endpoint {
	if (account.endpoints.length >= MAX_ENDPOINTS) {
		throw new ApiFailure(400, 'invalid', 'An account has at most 5 webhook endpoints', ['endpoints: at most 5']);
	}
	const problem = checkWebhookUrl(url, allowLoopback);
	if (problem) throw new ApiFailure(400, 'invalid', problem, [problem]);
	const endpoint: Endpoint = {
		id: `ep_${randomBytes(5).toString('hex')}`,
		url,
		secret: secret ?? newWebhookSecret(),
		enabled: true,
		firstFailureAt: null,
	};
	account.endpoints.push(endpoint);
	return endpoint;
}

export function findEndpoint(accounts: Iterable<Account>, endpointId: string): Endpoint | undefined {
	for (const account of accounts) {
		const endpoint = account.endpoints.find((e) => e.id === endpointId);
		if (endpoint) return endpoint;
	}
	return undefined;
}

/** A success clears the failure streak; a streak of 3 days (scaled) switches the endpoint off. */
export function noteDeliveryResult(endpoint: Endpoint, ok: boolean, now: number, timeScale: number): void {
	if (ok) {
		endpoint.firstFailureAt = null;
		return;
	}
	endpoint.firstFailureAt ??= now;
	if (endpointShouldBeDisabled(endpoint.firstFailureAt, now, timeScale)) {
		endpoint.enabled = false;
		const at = new Date(now).toISOString();
		endpoint.disabledNotice = `Endpoint switched off after failing for 3 days; owner notified by e-mail at ${at}`;
	}
}

/** A per-run webhookUrl is signed with the account's secret (or the anonymous one); endpoints with their own. */
export function finishedRunTargets(
	run: Run,
	accounts: Map<string, Account>,
	anonymousWebhookSecret: string,
	runWebhookSecret?: string,
): DeliveryTarget[] {
	const { ownerId } = run;
	const account = run.viaApiKey ? accounts.get(ownerId) : undefined;
	if (run.webhookUrl) {
		// Which secret signs a run's own webhookUrl is not in the spec: strict mode signs with one of its own.
		const secret = runWebhookSecret ?? account?.webhookSecret ?? anonymousWebhookSecret;
		return [{ url: run.webhookUrl, secret, endpointId: null, ownerId }];
	}
	return (account?.endpoints ?? [])
		.filter((ep) => ep.enabled)
		.map((ep) => ({ url: ep.url, secret: ep.secret, endpointId: ep.id, ownerId }));
}
