// One execution of a case's step through n8n's real WorkflowExecute (helpers/engine.ts), against the case's sandbox:
// Poll mode runs to its end; pause mode waits until a delivery (through the relay) or n8n's timer resumes it. Then
// it waits until nothing more happens (no delivery in flight, every submission cut unanswered handled late, every
// run of the account final), so the ledger the checks read is the final one, and records what the execution showed
// the user, which runs it made, and which of them the process that ended it may never have heard of.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { LogEntry } from '../../sandbox/types';
import { runNode } from '../helpers/engine';
import { inputItems, stepParameters, type BatchSpec } from './batchCase';
import type { PauseEnd } from './deliveryRelay';
import { answeredIntact, keyOf, submissionsIn } from './ledgerView';
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
	/**
	 * Runs it made whose ID may never have reached the memory of the n8n process that ended it, before it ended: no
	 * intact answer (202) came before the end, or each came after the pause while another n8n process was taking the
	 * execution's calls (a restart, or a second process beside the first). Answers before the pause are saved.
	 */
	unheard: string[];
	/** n8n processes that took the paused execution's calls: 1, more after a restart or beside a second; 0: no pause. */
	processes: number;
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

/** How an execution ended, for whose memory its answers reached: when, and in pause mode by which process. */
interface Ending {
	at: number;
	/** When it paused; absent: it did not. */
	heldAt?: number;
	end?: PauseEnd;
}

/**
 * The runs among `created` whose ID may never have reached the n8n process that ended the execution before it
 * ended, by the sandbox's log: no intact answer (202) to a submission of its key left the sandbox before the end,
 * other than after the pause while another process was taking the execution's calls (answers before the pause are
 * saved with the execution).
 */
function unheardIds(stage: Stage, created: string[], ending: Ending): string[] {
	const others = ending.end?.servedBy.filter((s) => s.process !== ending.end?.process) ?? [];
	const paused = ending.heldAt ?? Infinity;
	// A "slow" answer leaves the sandbox slowMs after the request came (a follow-up runs without faults).
	const slowMs = stage.faultRules.find((r) => r.route === 'POST /generations')?.slowMs ?? 2000;
	const heard = (e: LogEntry) => {
		const answeredAt = e.at + (e.fault === 'slow' ? slowMs : 0);
		return answeredAt < ending.at && (e.at < paused || !others.some((s) => s.since <= e.at));
	};
	const answers = submissionsIn(stage.sandbox, stage.account.id).filter((e) => answeredIntact(e) && heard(e));
	const keys = new Set(answers.map(keyOf));
	return created.filter((id) => !keys.has(stage.sandbox.engine.runs.get(id)!.requestKey));
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
		unheard: [],
		processes: 0,
	};
	let ending: Ending = { at: Date.now() };
	if (result.run?.status === 'waiting' && stage.relay) {
		const heldAt = Date.now();
		stage.relay.hold(result, stage.credentials);
		const end = await stage.relay.ended(result.executionId);
		ending = { at: end.at, heldAt, end };
		record = { ...record, items: shownItems(end.items), error: end.error, via: end.via };
		record.processes = new Set(end.servedBy.map((s) => s.process)).size;
	}
	await quiet(stage);
	record.created = [...engine.runs.keys()].filter(
		(id) => !before.has(id) && engine.runs.get(id)!.ownerId === stage.account.id,
	);
	record.unheard = unheardIds(stage, record.created, ending);
	return record;
}
