// What a paused step puts out when n8n's own wait timer ends the wait, because no delivery ended it in time.
// n8n does not run the node then (it passes on the input the node left, see pauseRuns.ts), so these items are
// written before the pause and say only what is known then: the time limit passed without a usable
// delivery, the likely causes, and each item's request key and run, to pick the runs up without paying
// again. Pure: no n8n calls.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { requestKeyAdvice, savedBatchKeys } from '../run/requestKey';
import type { PauseState } from './pauseState';

function minutes(ms: number): string {
	const value = Math.round((ms / 60_000) * 10) / 10;
	return `${value} minute${value === 1 ? '' : 's'}`;
}

export const TIMER_ERROR =
	'The time limit passed and no delivery from the service ended the wait, so n8n ended it: this step could not ' +
	'check the runs at that moment';

function timerNote(state: PauseState): string {
	const retype = requestKeyAdvice(savedBatchKeys(state.items, state.invalid.length));
	return (
		`No call from the service ended the wait within ${minutes(state.deadline - state.pausedAt)} plus one minute, ` +
		'so n8n ended it, and this step could not check the runs at that moment. Most likely the service could not ' +
		"reach this n8n (n8n's address for calls from outside must be public https: ask whoever runs your n8n), or " +
		'the runs were still going, or their calls could not be checked (the Webhook Signing Secret did not match ' +
		'and the service could not be asked about the runs). Runs that were sent keep going and are charged. To ' +
		`get them without paying again, run this step again with ${retype}. ` +
		'To wait without depending on calls from the service, choose Waiting → Poll.'
	);
}

/** One item per input item, in input order: the outcome if n8n's timer, not a delivery, ends the wait. */
export function timerOutcomeItems(state: PauseState, inputCount: number): INodeExecutionData[] {
	const note = timerNote(state);
	const byItem = new Map<number, IDataObject>();
	for (const bad of state.invalid) byItem.set(bad.item, { error: bad.message, description: bad.description ?? '' });
	for (const entry of state.items) {
		const json: IDataObject = {
			...entry.extraJson,
			error: entry.refused?.message ?? TIMER_ERROR,
			description: entry.refused ? (entry.refused.description ?? '') : note,
			requestKey: entry.body.requestKey,
			timedOut: !entry.refused,
		};
		if (entry.runId) json.runId = entry.runId;
		byItem.set(entry.item, json);
	}
	return Array.from({ length: inputCount }, (_, item) => ({
		json: byItem.get(item) ?? { error: TIMER_ERROR, description: note, timedOut: true },
		pairedItem: { item },
	}));
}
