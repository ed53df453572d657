// Who is calling: new accounts with their defaults, API keys from the Authorization header, the shape of
// anonymous ids, and what GET /me tells each caller.
import { randomBytes } from 'node:crypto';

import { ApiFailure } from './apiFailure';
import type { SandboxConfig } from './config';
import type { Account, Caller } from './types';
import { newWebhookSecret } from './webhooks';

export type NewAccount = Partial<
	Pick<Account, 'tier' | 'credits' | 'concurrency' | 'watermarked' | 'email' | 'priceFactor'>
> & {
	apiKey?: string;
};

/** An account with the spec's defaults for its tier: paid runs 3 at once unwatermarked, free 1 watermarked. */
export function newAccount(input: NewAccount, accountNumber: number): Account {
	const tier = input.tier ?? 'paid';
	return {
		id: `acct_${randomBytes(6).toString('hex')}`,
		email: input.email ?? `user${accountNumber}@example.test`,
		tier,
		credits: input.credits ?? 1000,
		concurrency: input.concurrency ?? (tier === 'paid' ? 3 : 1),
		watermarked: input.watermarked ?? tier !== 'paid',
		keys: [input.apiKey ?? `sk_${randomBytes(20).toString('hex')}`],
		revokedKeys: [],
		webhookSecret: newWebhookSecret(),
		endpoints: [],
		freeRunsToday: { day: '', count: 0 },
		priceFactor: input.priceFactor ?? 1,
	};
}

/** The account whose live key is in the "Bearer <key>" header. */
export function accountForKey(accounts: Iterable<Account>, authorization: string): Account {
	const key = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1] ?? '';
	for (const account of accounts) {
		if (account.keys.includes(key) && !account.revokedKeys.includes(key)) return account;
	}
	throw new ApiFailure(401, 'invalid_api_key', 'The API key is invalid or has been revoked');
}

/**
 * Sandbox choice for "unknown_anon_id" (status not shown): an id of the wrong shape, or one the control surface
 * marked unknown, is refused with 401, or with 404 in strict mode.
 */
export function checkAnonymousId(
	anonId: string,
	config: Pick<SandboxConfig, 'trialClosed' | 'strict'>,
	unknownIds: ReadonlySet<string>,
): void {
	if (config.trialClosed) throw new ApiFailure(403, 'trial_closed', 'The free tier is switched off for now');
	if (!/^[A-Za-z0-9._-]{8,80}$/.test(anonId) || unknownIds.has(anonId)) {
		const message = 'The anonymous id is not recognised: 8 to 80 letters, digits, ".", "_" or "-"';
		throw new ApiFailure(config.strict ? 404 : 401, 'unknown_anon_id', message);
	}
}

/** GET /me: anonymous callers are always watermarked and run one at a time. */
export function profileOf(caller: Caller): Record<string, unknown> {
	if (caller.type === 'anonymous') {
		return { tier: 'anonymous', credits: caller.wallet.credits, watermarked: true, concurrency: 1 };
	}
	const { tier, email, credits, watermarked, concurrency } = caller.account;
	return { tier, email, credits, watermarked, concurrency };
}
