// What the trigger makes of a delivery, as pure functions: the body read as a run record or a test event, the
// node's filters applied, the output item shaped. No n8n calls: webhook() reads and answers.
import type { IDataObject } from 'n8n-workflow';

import { runJson, type RunRecord } from '../shared/records';
import { runRecordProblem } from '../shared/responseChecks';

/** A run record with its outcome ("succeeded", "failed", …), or anything else: a test event. */
export type Delivery = { run: RunRecord; outcome: string } | { testEvent: IDataObject };

/** The outcome a status stands for, in webhook-ids and the trigger's output: only FAILED is "failed". */
export function outcomeOf(status: string): string {
	return status === 'SUCCEEDED' ? 'succeeded' : status === 'FAILED' ? 'failed' : status.toLowerCase();
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(raw: Buffer): unknown {
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		return undefined;
	}
}

export function readDelivery(raw: Buffer, webhookId: string): Delivery {
	const body = jsonOf(raw);
	if (runRecordProblem(body) !== undefined) {
		return { testEvent: { testEvent: true, webhookId, body: (body ?? raw.toString('utf8')) as IDataObject } };
	}
	const run = body as RunRecord;
	return { run, outcome: outcomeOf(run.status) };
}

/** The node's filters; an empty list lets everything through. */
export function passesFilters(
	run: RunRecord,
	outcome: string,
	{ outcomes, kinds, models }: { outcomes: string[]; kinds: string[]; models: string[] },
): boolean {
	return (
		(!outcomes.length || outcomes.includes(outcome)) &&
		(!kinds.length || kinds.includes(run.kind)) &&
		(!models.length || models.includes(run.model))
	);
}

/** The output item's JSON: the run record, the delivery's id, the outcome and, for a failed run, the refund. */
export function runItemJson(run: RunRecord, outcome: string, webhookId: string): IDataObject {
	const json: IDataObject = { ...(runJson(run) as IDataObject), webhookId, outcome };
	if (outcome === 'failed') json.refunded = run.refunded ?? run.cost;
	return json;
}
