/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The property the suite checks, and how a failure reads: every generated case (caseArb) run by runCase must break
// no money rule. A failure throws the case as plain JSON, every rule it broke and what each execution showed;
// fast-check adds the seed and the path to replay it (fc.assert(…, { seed, path })). Shrinking is bounded in wall
// time: past the budget, candidates are no longer run, so fast-check ends with the smallest failure found by then.
import fc from 'fast-check';

import { caseArb } from './arbitraries';
import type { BatchCase, WaitMode } from './batchCase';
import type { ExecutionRecord } from './execute';
import { counted, runCase, type CaseReport } from './runCase';
import { wallNow } from './warpClock';

/** Wall-clock time spent shrinking a failure before fast-check is made to stop (ms). */
const SHRINK_BUDGET_MS = Number(process.env.PROPERTY_SHRINK_MS ?? 40_000);

/** What an execution showed, short: each item's status or error, and the thrown error. */
function shown(record: ExecutionRecord): unknown {
	return {
		execution: record.label,
		via: record.via,
		runsMade: record.created.length,
		items: record.items.map(({ json, item, hasFiles }) => ({
			item: item + 1,
			id: json.id ?? json.runId,
			requestKey: json.requestKey,
			status: json.status,
			...(hasFiles ? { files: true } : {}),
			...(json.error ? { error: json.error, description: json.description } : {}),
			...(json.note ? { note: json.note } : {}),
		})),
		...(record.error ? { error: record.error } : {}),
	};
}

export function describeFailure(c: BatchCase, report: CaseReport): string {
	return [
		`${report.violations.length} money rule(s) broken:`,
		...report.violations.map((v) => `  rule ${v.rule} (${v.execution}): ${v.detail}`),
		`case: ${JSON.stringify(c)}`,
		`submissions by request key: ${JSON.stringify(report.submissions)}`,
		`shown: ${JSON.stringify(report.executions.map(shown), null, 1)}`,
		// Again at the end: CI logs keep the head and the tail of a long failure.
		...report.violations.map((v) => `broken: rule ${v.rule} (${v.execution}): ${v.detail}`),
	].join('\n');
}

/**
 * The property for one waiting mode. `lastFailure()` describes the last case that failed: once fast-check has
 * shrunk a failure, its smallest counterexample with every rule it broke and what the executions showed.
 */
export function moneyProperty(mode: WaitMode) {
	let firstFailureAt: number | undefined;
	let last = '';
	const property = fc.asyncProperty(caseArb(mode), async (c) => {
		if (firstFailureAt !== undefined && wallNow() - firstFailureAt > SHRINK_BUDGET_MS) return;
		const report = await runCase(c);
		if (!counted(report.violations).length) return;
		firstFailureAt ??= wallNow();
		last = describeFailure(c, report);
		throw new Error(last);
	});
	return { property, lastFailure: () => last };
}
