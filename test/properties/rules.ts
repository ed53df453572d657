// The money rules, checked after every execution against the sandbox's ledger and run table:
//   1. every charged run is in the output (its item) or named in the error or a warning with its run ID and request
//      key (by its request key alone where, by the sandbox's log, its ID may never have reached the process that
//      ended the execution: no intact answer carried it there before the end, or n8n's timer ended the wait);
//   2. no request key charged twice, no item paid for twice; no item gets another item's or another execution's run;
//   4. spent ≤ cap + the price of one run whose price could not be known when it was sent;
//   5. "nothing was charged" (and the node's other words for it) only where the ledger agrees.
// Rule 3 (following a message's advice charges nothing more) compares two executions: advice.ts.
import type { IDataObject } from 'n8n-workflow';

import { requestOf, type BatchCase } from './batchCase';
import type { ExecutionRecord } from './execute';
import { baseKeyOf, signatureOf, type RunFacts } from './ledgerView';

export interface Violation {
	rule: 1 | 2 | 3 | 4 | 5;
	execution: string;
	detail: string;
}

export interface Checked {
	case: BatchCase;
	facts: Map<string, RunFacts>;
	holders: Set<string>;
}

/** What the execution showed beside its items: the thrown error and the warnings, as one text. */
export function shownText(record: ExecutionRecord): string {
	const e = record.error;
	const parts = e ? [e.message, e.description ?? '', JSON.stringify(e.context ?? {})] : [];
	for (const { json } of record.items) if (typeof json.warning === 'string') parts.push(json.warning);
	return parts.join('\n');
}

/** The run an output item stands for: its `id` (run items, error items about a run) or its `runId`. */
export function runOfItem(json: IDataObject): string | undefined {
	for (const value of [json.id, json.runId]) if (typeof value === 'string' && value) return value;
	return undefined;
}

/** Runs this execution made that still cost credits (the account's slot holders are not the node's). */
function chargedRuns(c: Checked, record: ExecutionRecord): RunFacts[] {
	return record.created.map((id) => c.facts.get(id)!).filter((f) => f && f.charged > 0 && !c.holders.has(f.id));
}

function count<K>(map: Map<K, number>, key: K, by = 1): void {
	map.set(key, (map.get(key) ?? 0) + by);
}

/** How many items of the batch ask for each request (model and prompt). */
export function itemsPerSignature(c: Checked): Map<string, number> {
	const out = new Map<string, number>();
	c.case.batch.items.forEach((_, i) => count(out, signatureOf(requestOf(c.case.batch, i))));
	return out;
}

/**
 * Why a run's request key alone may name it (undefined: its ID must be shown too), by the sandbox's log alone,
 * never by the node's own labels: its ID may never have reached the memory of the process that ended the execution
 * before the end (no intact 202 carried it there: cut, spoilt or handled late; answered after the end, or to another
 * n8n process taking the calls), or n8n's timer ended the wait (a resume call saves nothing).
 */
function keyAloneBecause(run: RunFacts, record: ExecutionRecord): string | undefined {
	if (record.via === 'timer') return 'ended by the timer';
	if (!record.unheard.includes(run.id)) return undefined;
	return run.answered ? 'answered after the end or to another process' : 'answer lost';
}

export function checkChargedRunsShown(c: Checked, record: ExecutionRecord): Violation[] {
	const shown = shownText(record);
	const itemsText = JSON.stringify(record.items.map((i) => i.json));
	const inOutput = new Set(record.items.map((i) => runOfItem(i.json)).filter(Boolean));
	const out: Violation[] = [];
	for (const run of chargedRuns(c, record)) {
		if (inOutput.has(run.id)) continue;
		if (shown.includes(run.id) && shown.includes(run.requestKey)) continue;
		const keyAlone = keyAloneBecause(run, record);
		if (keyAlone && (shown.includes(run.requestKey) || itemsText.includes(`"${run.requestKey}"`))) continue;
		const named = shown.includes(run.id) ? 'named without its request key' : 'not named';
		out.push({
			rule: 1,
			execution: record.label,
			detail:
				`run ${run.id} (request key ${run.requestKey}, ${run.charged} credits charged${keyAlone ? `, ${keyAlone}` : ''})` +
				` is not in the output and is ${named} in the error or a warning`,
		});
	}
	return out;
}

export function checkNothingTwice(c: Checked, record: ExecutionRecord, earlier: ExecutionRecord[]): Violation[] {
	const out: Violation[] = [];
	const v = (detail: string) => out.push({ rule: 2, execution: record.label, detail });
	// An item paid for twice: more runs charged for a request than items ask for it.
	const items = itemsPerSignature(c);
	const charged = new Map<string, RunFacts[]>();
	for (const run of chargedRuns(c, record))
		charged.set(signatureOf(run), [...(charged.get(signatureOf(run)) ?? []), run]);
	for (const [signature, runs] of charged) {
		if (runs.length > (items.get(signature) ?? 0)) {
			v(
				`${runs.length} runs charged for "${runs[0].prompt}" on ${runs[0].model}, asked for by ` +
					`${items.get(signature) ?? 0} item(s): ${runs.map((r) => `${r.id} (${r.requestKey})`).join(', ')}`,
			);
		}
	}
	// A request key (or its fresh tries after refunds) charged twice, over the whole case.
	const byKey = new Map<string, RunFacts[]>();
	for (const run of c.facts.values()) {
		if (run.charged > 0 && !c.holders.has(run.id))
			byKey.set(baseKeyOf(run.requestKey), [...(byKey.get(baseKeyOf(run.requestKey)) ?? []), run]);
	}
	for (const [key, runs] of byKey) {
		if (runs.length > 1) v(`request key ${key} charged ${runs.length} times: ${runs.map((r) => r.id).join(', ')}`);
	}
	// Each item's run is its own: its own request, made by this execution. A follow-up of advice (every execution
	// after the first) sends the first execution's keys again, so it may get those runs back.
	const allowed = new Set([...record.created, ...earlier.flatMap((e) => e.created)]);
	const seen = new Map<string, number>();
	for (const { json, item } of record.items) {
		const runId = runOfItem(json);
		if (!runId) continue;
		const run = c.facts.get(runId);
		const asked = requestOf(c.case.batch, item);
		if (!run) v(`item ${item + 1} names run ${runId}, which is not a run of this account`);
		else if (c.holders.has(runId) || !allowed.has(runId)) v(`item ${item + 1} got run ${runId} of another execution`);
		else if (run.model !== asked.model || run.prompt !== asked.prompt)
			v(
				`item ${item + 1} asked for "${asked.prompt}" on ${asked.model} and got run ${runId} ("${run.prompt}" on ${run.model})`,
			);
		if (seen.has(runId) && seen.get(runId) !== item)
			v(`items ${seen.get(runId)! + 1} and ${item + 1} both got run ${runId}`);
		seen.set(runId, item);
	}
	return out;
}

export function checkCap(c: Checked, record: ExecutionRecord): Violation[] {
	const cap = c.case.batch.maxCredits;
	if (cap === undefined) return [];
	const runs = chargedRuns(c, record);
	const spent = runs.reduce((sum, r) => sum + r.charged, 0);
	// A typed key, with a like run charged before this execution, may give that run back free or start a new one:
	// the node cannot know that price either (nodes/MediaGen/run/spendingCap.ts priceOf).
	const typed = record.requestKey !== undefined || c.case.batch.requestKey.mode !== 'default';
	const mine = new Set(record.created);
	const before = [...c.facts.values()].filter((f) => !mine.has(f.id) && f.charged > 0 && !c.holders.has(f.id));
	const mayBeGivenBack = (r: RunFacts) => typed && before.some((f) => signatureOf(f) === signatureOf(r));
	const unknown = runs.filter((r) => !r.priceKnown || mayBeGivenBack(r)).map((r) => r.cost);
	const allowance = unknown.length ? Math.max(...unknown) : 0;
	if (spent <= cap + allowance) return [];
	return [
		{
			rule: 4,
			execution: record.label,
			detail:
				`spent ${spent} credits under a cap of ${cap} (allowed: cap + ${allowance}, the dearest run of unknown price): ` +
				runs.map((r) => `${r.id} ${r.charged}${r.priceKnown ? '' : ' (price unknown)'}`).join(', '),
		},
	];
}
