// One wording, wherever a step stops after some of its runs were paid for (poll batch, pause set-up, resume):
// the user learns which runs cost credits (or may have: a submission whose answer was lost) and how to get their
// files without paying again, and which items never started (they cost nothing). The list is built once
// (chargedRunOf per item) and written both into the error's description and into its context (`paidRuns`).
import type { IDataObject } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { requestKeyAdvice, type BatchKeys } from './requestKey';
import { runDetailsOf } from './runErrors';

/** A run this step started and the service charges for; without `id`, a submission that may have made one. */
export interface PaidRun {
	id?: string;
	itemIndex: number;
	cost?: number;
	status?: string;
	requestKey?: string;
	/** No ID: not known to have been sent at all (a pause-mode process that did not see every submission). */
	unconfirmed?: boolean;
}

/**
 * What an item of a stopped step may have been charged for: its run (known from the submission's answer or named
 * in its error) unless refunded, or its request key when the submission's answer was lost. Undefined: nothing.
 */
export function chargedRunOf(itemIndex: number, run?: RunRecord, error?: unknown): PaidRun | undefined {
	const details = error === undefined ? {} : runDetailsOf(error);
	const id = details.runId ?? run?.id;
	const requestKey = details.requestKey;
	if (!id) return details.mayBeCharged ? { itemIndex, ...(requestKey ? { requestKey } : {}) } : undefined;
	const status = details.status ?? run?.status;
	if (status === 'FAILED') return undefined;
	const cost = details.cost ?? run?.cost;
	return { id, itemIndex, ...(cost === undefined ? {} : { cost }), ...(status ? { status } : {}), requestKey };
}

function facts(run: PaidRun, withCost: boolean): string {
	const list = [`item ${run.itemIndex + 1}`];
	if (withCost && run.cost !== undefined) list.push(`${run.cost} credit${run.cost === 1 ? '' : 's'}`);
	if (withCost && run.status) list.push(run.status);
	if (run.requestKey) list.push(`request key ${run.requestKey}`);
	return list.join(', ');
}

export function paidRunsNote(runs: PaidRun[], batch?: BatchKeys): string {
	const known = runs.filter((run) => run.id);
	const unanswered = runs.filter((run) => !run.id && !run.unconfirmed);
	const unconfirmed = runs.filter((run) => run.unconfirmed);
	const notes: string[] = [];
	const retype = batch ? requestKeyAdvice(batch) : "Additional Fields → Request Key set to the item's request key";
	const getBack =
		`run this step again with ${retype}: the service returns the run it made for each key (or makes one if it ` +
		'made none) and charges nothing twice.';
	if (known.length) {
		notes.push(
			`Runs of this step already paid for: ${known.map((run) => `${run.id} (${facts(run, true)})`).join('; ')}. ` +
				'Their files are not passed on because the step failed: get them with Generation → Get (Run ID), which ' +
				'charges nothing (Generation → Wait for a run still going), or turn on "Continue On Fail" (Settings) so ' +
				'finished items are passed on beside the error.',
		);
	}
	if (unanswered.length) {
		notes.push(
			'Submissions whose answer was lost, so they may have been charged: ' +
				`${unanswered.map((run) => facts(run, false)).join('; ')}. To get their runs without paying again, ${getBack}`,
		);
	}
	if (unconfirmed.length) {
		notes.push(
			'Items this n8n process cannot tell were submitted or not (it did not send them: n8n restarted, or another ' +
				'process handled the batch), so they may have been charged: ' +
				`${unconfirmed.map((run) => facts(run, false)).join('; ')}. ` +
				`To get their runs, if they were made, without paying again, ${getBack}`,
		);
	}
	return notes.join(' ');
}

/** Item numbers as a person counts them (from 1), the first five and how many more. */
function listItems(indexes: number[]): string {
	if (indexes.length <= 6) return indexes.map((i) => i + 1).join(', ');
	return `${indexes
		.slice(0, 5)
		.map((i) => i + 1)
		.join(', ')} and ${indexes.length - 5} more`;
}

/**
 * Adds the note to an error's description (what n8n shows under the message) and the runs to its context
 * (`paidRuns`), and which items of a stopped batch were never started (they cost nothing). `batch`: the step's
 * request keys, for the advice to send them again.
 */
export function withPaidRuns<E>(error: E, runs: PaidRun[], notStarted: number[] = [], batch?: BatchKeys): E {
	const unstarted = notStarted.length ? `Items ${listItems(notStarted)} were not started and cost nothing.` : '';
	const note = [paidRunsNote(runs, batch), unstarted].filter(Boolean).join(' ');
	if (!note) return error;
	const e = error as { description?: string | null; context?: IDataObject };
	e.description = e.description ? `${e.description}\n\n${note}` : note;
	if (runs.length && typeof e === 'object') {
		e.context ??= {};
		e.context.paidRuns = runs.map((run) => ({
			item: run.itemIndex + 1,
			runId: run.id ?? null,
			requestKey: run.requestKey ?? null,
			status: run.status ?? (run.id ? null : 'UNCONFIRMED'),
			cost: run.cost ?? null,
		}));
	}
	return error;
}
