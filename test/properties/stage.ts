/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The stage of one case: a sandbox of its own (so its ledger, run table and request log are the case's), a paid
// account with the case's concurrency, plan prices and credits, runs already holding slots, the fault rules, and in
// pause mode the delivery relay in front of the n8n that serves the paused execution.
import type { IDataObject, INodeType } from 'n8n-workflow';

import type { FaultRule } from '../../sandbox/config';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { Account, Caller } from '../../sandbox/types';
import { models, type BatchCase } from './batchCase';
import { startDeliveryRelay, type DeliveryRelay } from './deliveryRelay';

/**
 * Run durations in ms and the spec's time spans (rate windows, the webhook retry schedule) scaled to 1 %: with the
 * warped clock (warpClock.ts) a batch takes milliseconds of wall time.
 */
export const SANDBOX_SETTINGS = {
	timeScale: 0.01,
	durations: { pendingMs: 50, image: 300, video: 900, music: 500 },
};

export interface Stage {
	sandbox: Sandbox;
	account: Account;
	credentials: Record<string, IDataObject>;
	/** Runs the account had going before the batch (not the node's). */
	holders: Set<string>;
	/** The first execution's fault rules (a follow-up runs without faults). */
	faultRules: FaultRule[];
	relay?: DeliveryRelay;
	close(): Promise<void>;
}

/** Our node as a newly started n8n process loads it: its own module memory. */
export function freshProcess(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		const { MediaGen } = require('../../nodes/MediaGen/MediaGen.node') as { MediaGen: new () => INodeType };
		node = new MediaGen();
	});
	return node!;
}

/** Starts the runs that hold slots: house-engine videos of the account, sent before the batch. */
function startHolders(sandbox: Sandbox, account: Account, count: number): Set<string> {
	const house = models.find((m) => m.kind === 'video' && m.free_tier)!;
	const caller: Caller = { type: 'account', account, ownerId: account.id };
	const ids = new Set<string>();
	for (let i = 0; i < Math.min(count, account.concurrency); i++) {
		const request = {
			kind: house.kind,
			model: house.id,
			prompt: 'a run holding a slot',
			options: { ...house.defaults },
			requestKey: `holder_${i}`,
		};
		try {
			ids.add(sandbox.engine.createGeneration(caller, request as never).run.id);
		} catch {
			break; // not enough credits for another: fewer holders
		}
	}
	return ids;
}

export async function stageCase(c: BatchCase): Promise<Stage> {
	const sandbox = await startSandbox(SANDBOX_SETTINGS);
	const { concurrency, priceFactor, credits } = c.account;
	const account = sandbox.engine.createAccount({ tier: 'paid', concurrency, priceFactor, credits });
	const holders = startHolders(sandbox, account, c.account.holders);
	const credentials = {
		mediaGenApi: { baseUrl: sandbox.baseUrl, apiKey: account.keys[0] },
		mediaGenWebhookApi: { secret: account.webhookSecret },
	};
	const relay =
		c.batch.waitMode === 'pause'
			? await startDeliveryRelay(c.faults.deliveries, freshProcess, () => [...sandbox.engine.runs.keys()])
			: undefined;
	sandbox.faults.set(c.faults.rules);
	return {
		sandbox,
		account,
		credentials,
		holders,
		faultRules: c.faults.rules,
		relay,
		close: async () => {
			await relay?.close();
			await sandbox.close();
		},
	};
}
