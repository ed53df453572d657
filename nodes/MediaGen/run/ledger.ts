// The ledger of a batch: each item in exactly one state, moved on by the outcome of each try to send it (learn). Here
// alone is "was it sent, and may it have been charged?" decided; the cap, the output and the advice all read it. Pure.
import type { INodeExecutionData } from 'n8n-workflow';

import { FINAL_STATUSES, type RunRecord } from '../../shared/records';

/**
 * - unsent: not sent, as far as this process can tell (it saw every send of the batch);
 * - unknown: another n8n process may have sent it (pause mode: a restart, another webhook process);
 * - answerLost: sent, and no answer told what its key made: the run may have been made and charged;
 * - running, finished: its run is known;
 * - refused: the service, the cap or a check refused it, with no earlier send unanswered: nothing was charged;
 * - refusedAfterLost: refused, but an earlier send's answer was lost: the run may have been made and charged.
 */
type ItemState = 'unsent' | 'unknown' | 'answerLost' | 'running' | 'finished' | 'refused' | 'refusedAfterLost';

export interface LedgerItem {
	/** Input position, from 0. */
	itemIndex: number;
	/** The request key as last sent: `firstKey`, or its -r2 … (`attempt`) after runs that came back failed. */
	key: string;
	firstKey: string;
	attempt?: number;
	state: ItemState;
	run?: RunRecord;
	/** Its key brought back a run an earlier execution made and paid for: it costs this step nothing. */
	earlier?: boolean;
	/** Why it is refused (states refused and refusedAfterLost), else the last failed try's error, if any. */
	failure?: unknown;
	/** Pause mode: the run's status as recorded at the pause, not delivered or read since: it may be out of date. */
	stale?: boolean;
	/** Refused for want of credits (402): after a refund, another process may send the same key and be charged. */
	outOfCredits?: boolean;
	/** Pause mode: refused by the cap after the pause; another process, knowing other costs, may have sent it. */
	cappedHere?: boolean;
	/** Once the step ends: its output item (a run, or an error item), and the error it failed with, if it did. */
	output?: INodeExecutionData;
	error?: unknown;
}

/** What one try to send an item ended with. `lostBefore`: an answer to an earlier try within it was lost. */
type SendOutcome = { lostBefore?: boolean } & (
	| { run: RunRecord }
	/** 409: no free slot; nothing made by this try. */
	| { busy: unknown }
	/** No usable answer: the run may have been made (and charged), now or later. */
	| { noAnswer: unknown }
	/** A 5xx or 429 that says nothing of the request and may pass. */
	| { passing: unknown }
	/** Any other refusal: nothing made by this try. */
	| { refused: unknown; outOfCredits?: boolean }
);

export function ledgerItem(itemIndex: number, key: string, state: ItemState = 'unsent'): LedgerItem {
	return { itemIndex, key, firstKey: key, state };
}

/** The item may have been charged for a run whose ID the node does not know. */
export function mayBeCharged(item: LedgerItem): boolean {
	return item.state === 'answerLost' || item.state === 'refusedAfterLost' || item.state === 'unknown';
}

/** Its run, or the refusal or lost answer it ended with, will not change. */
export function isSettled(item: LedgerItem): boolean {
	return item.state === 'finished' || item.state === 'refused' || item.state === 'refusedAfterLost';
}

/** Records a run (the newest state of it: a final record is never replaced by an older one). */
export function learnRun(item: LedgerItem, run: RunRecord): void {
	const known = item.run;
	if (known?.id === run.id && FINAL_STATUSES.includes(known.status) && !FINAL_STATUSES.includes(run.status)) return;
	item.run = run;
	item.state = FINAL_STATUSES.includes(run.status) ? 'finished' : 'running';
	item.failure = item.stale = item.outOfCredits = item.cappedHere = undefined;
}

/** Refuses the item before any send of its own (a check, the cap): nothing was charged for it. */
export function refuse(item: LedgerItem, failure: unknown): void {
	item.state = mayBeCharged(item) && item.state !== 'unknown' ? 'refusedAfterLost' : 'refused';
	item.failure = failure;
}

/**
 * The one rule: a lost answer leaves the item "may have been charged" until an answer names its run; a busy or
 * passing answer after it says nothing, and a refusal after it says nothing of the run the lost try may have made.
 */
export function learn(item: LedgerItem, outcome: SendOutcome): void {
	if ('run' in outcome) return learnRun(item, outcome.run);
	const lost = outcome.lostBefore || 'noAnswer' in outcome || item.state === 'answerLost';
	if ('refused' in outcome) {
		item.state = lost ? 'refusedAfterLost' : 'refused';
		item.failure = outcome.refused;
		item.outOfCredits = outcome.outOfCredits || undefined;
		return;
	}
	item.failure = 'busy' in outcome ? outcome.busy : 'noAnswer' in outcome ? outcome.noAnswer : outcome.passing;
	if (lost) item.state = 'answerLost';
}

/** What the item costs this step in credits: its run's cost, else `price` while it may have been charged. */
export function creditsOf(item: LedgerItem, price: number | undefined): number | undefined {
	if (item.run) {
		if (item.earlier || item.run.status === 'FAILED') return 0;
		const cost = Number(item.run.cost);
		return Number.isFinite(cost) ? cost : price;
	}
	return mayBeCharged(item) && item.state !== 'unknown' ? (price ?? 0) : undefined;
}
