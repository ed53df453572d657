// What the sandbox knows about a case's runs, as the checks read it: each run of the account with its request key,
// request, cost, and the credits its ledger lines net to (a refunded failure nets to 0), whether the node ever got
// the answer to a submission of its key, and whether its price could be known before it was sent.
import type { Sandbox } from '../../sandbox/server';
import type { Model, Run } from '../../sandbox/types';
import { modelById } from './batchCase';

export interface RunFacts {
	id: string;
	requestKey: string;
	model: string;
	prompt: string;
	cost: number;
	/** Credits the run still costs on the ledger (charges less refunds). */
	charged: number;
	/** Some submission with its key was answered (202) and the answer reached the node intact. */
	answered: boolean;
	/** The catalogue's price was the run's real price: options at the model's defaults and plan prices at 1×. */
	priceKnown: boolean;
}

/** Kinds of injected faults after which the node never saw the answer of a handled request. */
const LOST = new Set(['drop_after', 'malformed']);

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
	for (const entry of engine.log) {
		if (entry.method !== 'POST' || !entry.path.startsWith('/v1/generations') || entry.ownerId !== ownerId) continue;
		const key = (entry.body as { requestKey?: unknown } | undefined)?.requestKey;
		if (entry.status === 202 && typeof key === 'string' && !LOST.has(String(entry.fault))) answeredKeys.add(key);
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
