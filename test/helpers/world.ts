// The sandbox's world as the tests look into it: an account of a test's own, the runs of an account, the delivery
// of a run. What an account was charged: ledger.ts.
import type { Sandbox } from '../../sandbox/server';
import type { Account, Run } from '../../sandbox/types';
import type { Delivery } from '../../sandbox/webhooks';
import { spentBy } from './ledger';

/** An account's credentials as the engine harness takes them: its API key, and its webhook signing secret. */
export type OwnCredentials = {
	mediaGenApi: { baseUrl: string; apiKey: string };
	mediaGenWebhookApi: { secret: string };
};

export interface OwnAccount {
	id: string;
	account: Account;
	creds: OwnCredentials;
	/** Net credits it has spent (charges minus refunds). */
	charges(): number;
	/** Its runs, oldest first. */
	runs(): Run[];
}

/**
 * An account of the test's own in `sb`: paid, 1,000 credits and 3 runs at once unless `account` says otherwise.
 * Its charges, runs and slots, and its 20 submissions a minute, are then that test's alone.
 */
export function ownAccount(sb: Sandbox, account: Partial<Account> = {}): OwnAccount {
	const own = sb.engine.createAccount({ tier: 'paid', credits: 1_000, concurrency: 3, ...account });
	return {
		id: own.id,
		account: own,
		creds: {
			mediaGenApi: { baseUrl: sb.baseUrl, apiKey: own.keys[0] },
			mediaGenWebhookApi: { secret: own.webhookSecret },
		},
		charges: () => spentBy(sb, own.id),
		runs: () => runsOf(sb, own.id),
	};
}

/** The runs of an owner (an account id, or `anon:<id>`), oldest first. */
export const runsOf = (sb: Sandbox, ownerId: string): Run[] =>
	[...sb.engine.runs.values()].filter((r) => r.ownerId === ownerId);

/** The service's delivery of a run's result: to its own Webhook URL, else to the account's first endpoint. */
export const deliveryOf = (sb: Sandbox, runId: string): Delivery | undefined =>
	sb.engine.webhooks.deliveries.find((d) => d.runId === runId);
