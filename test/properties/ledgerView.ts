// What the sandbox knows about a case's runs, as the checks read it: each run of the account with its request key,
// request, cost, and the credits its ledger lines net to (a refunded failure nets to 0), whether the node ever got
// the answer to a submission of its key, and whether its price could be known before it was sent.
import type { Sandbox } from '../../sandbox/server';
import type { LogEntry, Model, Run } from '../../sandbox/types';
import { modelById } from './batchCase';

export interface RunFacts {
	id: string;
	requestKey: string;
	model: string;
	prompt: string;
	cost: number;
	/** Credits the run still costs on the ledger (charges less refunds). */
	charged: number;
	/** Some submission with its key was answered (202), the answer reaching the node intact (not cut, spoilt, late). */
	answered: boolean;
	/** The catalogue's price was the run's real price: options at the model's defaults and plan prices at 1×. */
	priceKnown: boolean;
}

/**
 * Kinds of injected faults after which the node never saw the answer of a handled request. A "late" request is
 * handled after its connection was cut unanswered: its log entry's status becomes 202 then, but nobody read it.
 */
export const LOST = new Set(['drop_after', 'malformed', 'late']);

/** The account's submissions (POST /generations) in the sandbox's log, in the order they arrived. */
export function submissionsIn(sandbox: Sandbox, ownerId: string): LogEntry[] {
	return sandbox.engine.log.filter(
		(e) => e.method === 'POST' && e.path.startsWith('/v1/generations') && e.ownerId === ownerId,
	);
}

/** The request key a submission carried (undefined if its body was not read). */
export function keyOf(entry: LogEntry): string | undefined {
	const key = (entry.body as { requestKey?: unknown } | undefined)?.requestKey;
	return typeof key === 'string' ? key : undefined;
}

/** A submission accepted (202) whose answer reached the node intact: the node learnt its run's ID from it. */
export const answeredIntact = (entry: LogEntry) =>
	entry.status === 202 && !LOST.has(String(entry.fault)) && entry.answerSent !== false;

const PRICE_OPTIONS = ['resolution', 'duration', 'audio'] as const;

/** The options that set the price (resolution, length, sound) are the model's defaults; music is one price. */
export function atDefaults(model: Model, options: Record<string, unknown>): boolean {
	if (model.kind === 'music') return true;
	const defaults = model.defaults as unknown as Record<string, unknown>;
	return PRICE_OPTIONS.every((k) => String(options[k] ?? defaults[k]) === String(defaults[k]));
}

export function runFacts(sandbox: Sandbox, ownerId: string, priceFactor: number): Map<string, RunFacts> {
	const { engine } = sandbox;
	const net = new Map<string, number>();
	for (const line of engine.ledger) {
		if (line.ownerId === ownerId && line.runId) net.set(line.runId, (net.get(line.runId) ?? 0) - line.delta);
	}
	const answeredKeys = new Set<string>();
	for (const entry of submissionsIn(sandbox, ownerId)) {
		const key = keyOf(entry);
		if (key !== undefined && answeredIntact(entry)) answeredKeys.add(key);
	}
	const facts = new Map<string, RunFacts>();
	for (const run of engine.runs.values() as Iterable<Run>) {
		if (run.ownerId !== ownerId) continue;
		const requestKey = String(run.requestKey ?? '');
		facts.set(run.id, {
			id: run.id,
			requestKey,
			model: run.model,
			prompt: run.prompt,
			cost: run.cost,
			charged: Math.round(net.get(run.id) ?? 0),
			answered: answeredKeys.has(requestKey),
			priceKnown: priceFactor === 1 && atDefaults(modelById(run.model), run.options as never),
		});
	}
	return facts;
}

/** A request's identity for counting: runs and items with the same model and prompt are interchangeable. */
export const signatureOf = (r: { model: string; prompt: string }) => `${r.model}\u0000${r.prompt}`;

/** The key of a first try and of its fresh tries after refunded failures ("-r2", "-r3" …). */
export const baseKeyOf = (key: string) => key.replace(/-r\d+$/, '');
