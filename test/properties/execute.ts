// One execution of a case's step through n8n's real WorkflowExecute (helpers/engine.ts), against the case's sandbox:
// Poll mode runs to its end; pause mode waits until a delivery (through the relay) or n8n's timer resumes it. Then
// it waits until nothing more happens (no delivery in flight, every submission cut unanswered handled late, every
// run of the account final), so the ledger the checks read is the final one, and records what the execution showed
// the user and which runs it made.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { inputItems, stepParameters, type BatchSpec } from './batchCase';
import type { Stage } from './stage';
import { until } from './warpClock';

export interface Shown {
	message: string;
	description?: string | null;
	context?: IDataObject;
}

export interface ExecutionRecord {
	/** "first run", or "advice <key>" for a follow-up that did what a message advised. */
	label: string;
	/** The Request Key typed in for a follow-up. */
	requestKey?: string;
	/** Output items (json only; whether binary files came along is kept as `hasFiles`). */
	items: Array<{ json: IDataObject; item: number; hasFiles: boolean }>;
	error?: Shown;
	/** How it ended: the node's own run, a delivery's resume call, or n8n's wait timer. */
	via: 'run' | 'delivery' | 'timer';
	/** Runs of the account the sandbox made while this execution ran (and its calls went on, or were handled late). */
	created: string[];
}

const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELED'];

/** Every run of the account final (settled on the sandbox's clock), so no refund is still to come. */
async function allRunsFinal(stage: Stage): Promise<void> {
	const { engine } = stage.sandbox;
	const mine = () => [...engine.runs.values()].filter((r) => r.ownerId === stage.account.id);
	await until(() => mine().every((r) => FINAL.includes(engine.settle(r).status)), 3_600_000, 100);
}

/**
 * Until nothing more happens: no delivery in flight, no submission cut unanswered still to be handled late (its run
 * is made and charged then), every run final. A run finishing sends a delivery, which may send more: so twice.
 */
async function quiet(stage: Stage): Promise<void> {
	for (let pass = 0; pass < 2; pass++) {
		await stage.relay?.idle();
		await stage.sandbox.lateRequestsHandled();
		await allRunsFinal(stage);
	}
	await stage.relay?.idle();
	await stage.sandbox.lateRequestsHandled();
}

function shownItems(items: INodeExecutionData[]): ExecutionRecord['items'] {
	return items.map((item, position) => {
		const paired = item.pairedItem as { item?: number } | undefined;
		return {
			json: item.json,
			item: paired?.item ?? position,
			hasFiles: !!item.binary && !!Object.keys(item.binary).length,
		};
	});
}

export async function execute(
	stage: Stage,
	batch: BatchSpec,
	label: string,
	requestKey?: string,
): Promise<ExecutionRecord> {
	const { engine } = stage.sandbox;
	const before = new Set(engine.runs.keys());
	const result = await runNode({
		parameters: stepParameters(batch, requestKey),
		items: inputItems(batch),
		credentials: stage.credentials as never,
		nodeOverrides: batch.continueOnFail ? { onError: 'continueRegularOutput' } : {},
		webhookWaitingBaseUrl: stage.relay?.baseUrl,
	});
	let record: ExecutionRecord = {
		label,
		requestKey,
		items: shownItems(result.items),
		error: result.error,
		via: 'run',
		created: [],
	};
	if (result.run?.status === 'waiting' && stage.relay) {
		stage.relay.hold(result, stage.credentials);
		const end = await stage.relay.ended(result.executionId);
		record = { ...record, items: shownItems(end.items), error: end.error, via: end.via };
	}
	await quiet(stage);
	record.created = [...engine.runs.keys()].filter(
		(id) => !before.has(id) && engine.runs.get(id)!.ownerId === stage.account.id,
	);
	return record;
}
