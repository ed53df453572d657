// Errors about runs keep what finds the run again (id, request key, status, cost, refund) in their context; a step
// that stops after some runs were paid for names them in one wording (withPaidRuns), so none is paid for and lost.
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunRecord } from '../../shared/records';
import { isLostAnswer, MediaGenApiError, NOTHING_CHARGED } from '../../shared/transport';
import { mayBeCharged, type LedgerItem } from './ledger';
import { requestKeyAdvice, type BatchKeys } from './requestKey';
import { TIME_LIMIT_CODE } from './timeLimit';

/** The one wording of a refusal before anything was sent (a step or item refused, a batch over the cap). */
export const NOTHING_SENT = `Nothing was submitted and ${NOTHING_CHARGED}`;

/** The one wording of an item never sent, beside the field `nothingCharged` that says the same to a workflow. */
export const NOT_SENT_ITEM = `It was not submitted, so ${NOTHING_CHARGED} for it`;

/** Says, in the one wording and the one field (`nothingCharged`), that nothing was sent or charged for the error. */
export function saysNothingSent<E>(error: E): E {
	const e = error as { description?: string | null };
	e.description = e.description ? `${NOTHING_SENT}. ${e.description}` : `${NOTHING_SENT}.`;
	return addRunDetails(error, { nothingCharged: true });
}

/** A service answer by its status and code only: its "nothing was charged" speaks of that request, not of the run. */
export function failureInBrief(error: unknown): string {
	if (error instanceof MediaGenApiError && !isLostAnswer(error) && error.httpCode)
		return `HTTP ${error.httpCode}${error.code ? ` (${error.code})` : ''}`;
	return String((error as Error)?.message ?? error).replace(/\.+$/, '');
}

interface RunDetails {
	runId?: string;
	requestKey?: string;
	status?: string;
	cost?: number;
	/** Credits returned; only set where the service says so (failed runs). */
	refunded?: number;
	errorCode?: string;
	issues?: string[];
	/** The submission's answer was lost: its run may have been made and charged (under `requestKey`). */
	mayBeCharged?: boolean;
	/**
	 * The node's one claim that nothing was charged: for the error's item (its `requestKey`), or for the whole step
	 * when the error names no item. Set from the ledger or a check before sending, never from a service's wording.
	 */
	nothingCharged?: boolean;
}

/** The fields of RunDetails, in the order error items show them; they live in the error's `context`. */
const DETAIL_KEYS = [
	'runId',
	'requestKey',
	'status',
	'cost',
	'refunded',
	'errorCode',
	'issues',
	'mayBeCharged',
	'nothingCharged',
] as const;

type WithContext = { context?: IDataObject };
type Ctx = IExecuteFunctions | IWebhookFunctions;

/** Without overwriting what the error already says. */
export function addRunDetails<E>(error: E, details: RunDetails): E {
	const target = error as WithContext;
	if (!target || typeof target !== 'object') return error;
	target.context ??= {};
	for (const key of DETAIL_KEYS)
		if (details[key] !== undefined && target.context[key] === undefined) target.context[key] = details[key];
	return error;
}

export function runDetailsOf(error: unknown): RunDetails {
	const context = (error as WithContext)?.context ?? {};
	return Object.fromEntries(DETAIL_KEYS.filter((key) => context[key] !== undefined).map((key) => [key, context[key]]));
}

export function detailsOfRun(run: RunRecord, requestKey?: string): RunDetails {
	const details: RunDetails = { runId: run.id, status: run.status, cost: run.cost, requestKey };
	if (run.status === 'FAILED') details.refunded = run.refunded ?? run.cost;
	return details;
}

/** An error that keeps the run's id, status and refund, so "Continue On Fail" items say what happened. */
export function runError(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	message: string,
	description: string,
	itemIndex: number,
	requestKey?: string,
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, { description, itemIndex });
	return addRunDetails(error, detailsOfRun(run, requestKey));
}

/** A FAILED run is refunded automatically; of a CANCELED one only its record's status and cost are known. */
export function failedRunError(
	ctx: IExecuteFunctions | IWebhookFunctions,
	run: RunRecord,
	itemIndex: number,
	requestKey?: string,
): NodeOperationError {
	const reason = run.error ?? 'no reason given';
	const refunded = run.refunded ?? run.cost;
	// The spec lists CANCELED but says neither who cancels (clients cannot) nor whether its credits come back.
	const [message, description] =
		run.status === 'CANCELED'
			? [
					`Run ${run.id} was cancelled: the service's record says CANCELED (${reason})`,
					`The service's record says CANCELED and that the run cost ${run.cost} credit${run.cost === 1 ? '' : 's'}; ` +
						'the service does not say whether credits come back for a canceled run (they do for a failed one): ' +
						'check Account → Get. A new execution starts a new run.',
				]
			: [
					`Run ${run.id} failed: ${reason}`,
					`${refunded} credit${refunded === 1 ? ' was' : 's were'} refunded automatically. Try again, perhaps with ` +
						`another prompt or model: a new execution, or "Retry On Fail", starts a new run.`,
				];
	return runError(ctx, run, message, description, itemIndex, requestKey);
}

/** An error kept as data (pause mode records it and shows it later). */
export interface Refusal {
	message: string;
	description?: string;
	/** The submission's answer was lost: the service may have made and charged the run. */
	mayBeCharged?: true;
	/** Its time limit passed before an answer named its run (so a step run again with its key may bring it). */
	timedOut?: true;
}

export function refusalOf(error: unknown): Refusal {
	const e = error as { message?: string; description?: string | null };
	return {
		message: String(e?.message ?? error),
		...(e?.description ? { description: e.description } : {}),
		...(runDetailsOf(error).mayBeCharged ? { mayBeCharged: true as const } : {}),
	};
}

/**
 * The error of an item its sends did not bring a run for, as the ledger knows it: sent and maybe charged (its key and
 * how to get the run back), refused (the refusal), or never sent within its time limit (nothing charged).
 */
export function sendFailure(ctx: Ctx, item: LedgerItem, batch: BatchKeys, limitMs: number): Error {
	const requestKey = item.key;
	const last = item.failure;
	if (mayBeCharged(item)) {
		// A lost answer's own description says what to check (more often a wrong Base URL or a proxy than a broken
		// service); a service answer is named by its code only, since its wording speaks of that one send.
		const hint =
			isLostAnswer(last) && last instanceof MediaGenApiError && last.description ? ` ${last.description}` : '';
		const description =
			`Its request key is ${requestKey}. To get that run without paying again, run this step again with ` +
			`${requestKeyAdvice(batch)}: the service then returns the run it made for each key (or makes one if it ` +
			`made none) and charges nothing twice.${last ? ` Last problem: ${failureInBrief(last)}.${hint}` : ''}`;
		const message =
			'No usable answer to the submission of this run within its time limit: the run may have started and been ' +
			'charged';
		const error = new NodeOperationError(ctx.getNode(), message, { description, itemIndex: item.itemIndex });
		return addRunDetails(error, { requestKey, mayBeCharged: true });
	}
	// Every send heard a refusal, busy or a passing failure, none was lost: nothing was made for it.
	if (last) return addRunDetails(last as Error, { requestKey, nothingCharged: true });
	// It waited (for the spending cap's turn or a run slot) until its deadline: it is not sent at all.
	const error = new NodeOperationError(
		ctx.getNode(),
		`Not submitted within its time limit (${Math.round(limitMs / 1000)} seconds): it waited for earlier runs of ` +
			'this step',
		{
			description:
				`${NOT_SENT_ITEM}. Raise "Time Limit" under Waiting, or send fewer items at once: under Max ` +
				'Credits per Execution the runs are submitted one at a time.',
			itemIndex: item.itemIndex,
		},
	);
	return addRunDetails(error, { errorCode: TIME_LIMIT_CODE, requestKey, nothingCharged: true });
}

/** A "Continue On Fail" item: what it asked for, the error, and the run details (its run ID also as `id`). */
export function errorItem(error: unknown, itemIndex: number, asked: IDataObject = {}): INodeExecutionData {
	const e = error as { message?: string; description?: string | null; httpCode?: string | null };
	const details = runDetailsOf(error);
	const json: IDataObject = { ...(details.runId ? { id: details.runId } : {}), ...asked };
	json.error = e?.message ?? String(error);
	if (e?.description) json.description = e.description;
	Object.assign(json, details);
	if (e?.httpCode) json.httpCode = e.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/** A run this step started and the service charges for; without `id`, a submission that may have made one. */
interface PaidRun {
	id?: string;
	itemIndex: number;
	cost?: number;
	status?: string;
	requestKey?: string;
	/** No ID: not known to have been sent at all (a pause-mode process that did not see every submission). */
	unconfirmed?: boolean;
}

/** What the items of a stopped step were or may have been charged for: each run unless refunded, else its key. */
export function paidRunsOf(items: LedgerItem[]): PaidRun[] {
	return items.flatMap((item): PaidRun[] => {
		const { itemIndex, run, key: requestKey } = item;
		if (!run) {
			if (item.state === 'unknown') return [{ itemIndex, requestKey, unconfirmed: true }];
			return mayBeCharged(item) ? [{ itemIndex, requestKey }] : [];
		}
		if (run.status === 'FAILED') return [];
		const status = item.stale ? {} : { status: run.status };
		return [{ id: run.id, itemIndex, ...(run.cost === undefined ? {} : { cost: run.cost }), ...status, requestKey }];
	});
}

function facts(run: PaidRun, withCost: boolean): string {
	const list = [`item ${run.itemIndex + 1}`];
	if (withCost && run.cost !== undefined) list.push(`${run.cost} credit${run.cost === 1 ? '' : 's'}`);
	if (withCost && run.status) list.push(run.status);
	if (run.requestKey) list.push(`request key ${run.requestKey}`);
	return list.join(', ');
}

export function paidRunsNote(runs: PaidRun[], batch?: BatchKeys): string {
	const known = runs.filter((run) => run.id).map((run) => `${run.id} (${facts(run, true)})`);
	const unanswered = runs.filter((run) => !run.id && !run.unconfirmed).map((run) => facts(run, false));
	const unconfirmed = runs.filter((run) => run.unconfirmed).map((run) => facts(run, false));
	const retype = batch ? requestKeyAdvice(batch) : "Additional Fields → Request Key set to the item's request key";
	const getBack =
		`run this step again with ${retype}: the service returns the run it made for each key (or makes one if it ` +
		'made none) and charges nothing twice.';
	const notes = [
		known.length &&
			`Runs of this step already paid for: ${known.join('; ')}. ` +
				'Their files are not passed on because the step failed: get them with Generation → Get (Run ID), which ' +
				'charges nothing (Generation → Wait for a run still going), or set Settings → On Error to Continue ' +
				'(n8n 1.x: turn on "Continue On Fail") so ' +
				'finished items are passed on beside the error.',
		unanswered.length &&
			'Submissions whose answer was lost, so they may have been charged: ' +
				`${unanswered.join('; ')}. To get their runs without paying again, ${getBack}`,
		unconfirmed.length &&
			'Items this n8n process cannot tell were submitted or not (it did not send them: n8n restarted, or another ' +
				'process handled the batch), so they may have been charged: ' +
				`${unconfirmed.join('; ')}. To get their runs, if they were made, without paying again, ${getBack}`,
	];
	return notes.filter(Boolean).join(' ');
}

/** Item numbers as a person counts them (from 1), the first five and how many more. */
function listItems(indexes: number[]): string {
	const shown = (indexes.length <= 6 ? indexes : indexes.slice(0, 5)).map((i) => i + 1).join(', ');
	return indexes.length <= 6 ? shown : `${shown} and ${indexes.length - 5} more`;
}

/** Adds the note on paid runs and on items never started to the description, and the runs to `context.paidRuns`. */
export function withPaidRuns<E>(error: E, runs: PaidRun[], notStarted: number[] = [], batch?: BatchKeys): E {
	const one = notStarted.length === 1;
	const unstarted = notStarted.length
		? `${one ? 'Item' : 'Items'} ${listItems(notStarted)} ${one ? 'was' : 'were'} not started, so ` +
			`${NOTHING_CHARGED} for ${one ? 'it' : 'them'}.`
		: '';
	const note = [paidRunsNote(runs, batch), unstarted].filter(Boolean).join(' ');
	if (!note) return error;
	const e = error as { description?: string | null; context?: IDataObject };
	e.description = e.description ? `${e.description}\n\n${note}` : note;
	if (notStarted.length) {
		e.context ??= {};
		// The items the note says nothing was charged for, counted from 1 as `paidRuns` and the panels count them.
		e.context.notStarted = notStarted.map((i) => i + 1);
	}
	if (runs.length) {
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
