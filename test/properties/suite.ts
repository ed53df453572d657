/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Runs the money property over many generated cases in one waiting mode. The cases are fast-check's (the same
// values fc.assert draws for this seed: fc.sample), run several at a time (each has its own sandbox, account and
// relay, and most of a case is spent waiting). A case that breaks a rule is then replayed by fc.assert at its path,
// which shrinks it and prints the seed, the path and the smallest counterexample. It prints what the cases
// exercised (coverage.ts) and fails when a kind of fault or outcome falls under its floor.
import fc from 'fast-check';

import { caseArb } from './arbitraries';
import type { BatchCase, WaitMode } from './batchCase';
import { Coverage } from './coverage';
import { describeFailure, moneyProperty } from './moneyProperty';
import { counted, runCase, type CaseReport } from './runCase';

export interface SuiteOptions {
	mode: WaitMode;
	seed: number;
	runs: number;
	/** Cases run at once. */
	parallel: number;
	onReport?: (report: CaseReport, c: BatchCase) => void;
}

/**
 * The options `npm test` runs with, or what the environment says: PROPERTY_SEED, PROPERTY_RUNS, PROPERTY_PARALLEL.
 * PROPERTY_PATH (with PROPERTY_SEED) replays one case and shrinks it, as fast-check printed them.
 */
export function optionsFromEnv(mode: WaitMode, seed: number, parallel: number): SuiteOptions & { path?: string } {
	const env = process.env;
	return {
		mode,
		seed: Number(env.PROPERTY_SEED ?? seed),
		runs: Number(env.PROPERTY_RUNS ?? 300),
		parallel: Number(env.PROPERTY_PARALLEL ?? parallel),
		...(env.PROPERTY_PATH ? { path: env.PROPERTY_PATH } : {}),
	};
}

/**
 * The suite of one mode: every case, or the one case PROPERTY_PATH names (replayed and shrunk by fc.assert). Prints
 * the coverage line; a broken rule fails it first, then a coverage count under its floor.
 */
export async function runSuite(options: SuiteOptions & { path?: string }): Promise<void> {
	if (options.path) {
		await assertShrunk(options.mode, options.seed, options.path, 'Replayed:');
		return;
	}
	const coverage = new Coverage();
	const onReport = (report: CaseReport, c: BatchCase) => {
		coverage.add(options.mode, report.coverage);
		options.onReport?.(report, c);
	};
	const failures = await runCases({ ...options, onReport });
	process.stdout.write(`Property suite, seed ${options.seed}: ${coverage.line(options.mode)}\n`);
	const shortfalls = coverage.shortfalls(options.mode);
	const under = shortfalls.length ? `\nCoverage under its floor (coverage.ts FLOORS):\n${shortfalls.join('\n')}` : '';
	try {
		await assertNoFailure(options, failures);
	} catch (error) {
		if (!under) throw error;
		throw new Error(`${(error as Error).message}${under}`);
	}
	if (under) throw new Error(`${coverage.line(options.mode)}${under}`);
}

export interface SuiteFailure {
	index: number;
	case: BatchCase;
	report: CaseReport;
}

/** Runs every case; returns those that broke a rule, in generation order. */
export async function runCases(options: SuiteOptions): Promise<SuiteFailure[]> {
	const cases = fc.sample(caseArb(options.mode), { seed: options.seed, numRuns: options.runs });
	const failures: SuiteFailure[] = [];
	let next = 0;
	const worker = async () => {
		while (next < cases.length) {
			const index = next++;
			const report = await runCase(cases[index]);
			options.onReport?.(report, cases[index]);
			if (counted(report.violations).length) failures.push({ index, case: cases[index], report });
		}
	};
	await Promise.all(Array.from({ length: options.parallel }, worker));
	return failures.sort((a, b) => a.index - b.index);
}

/** Replays the case at `path` with fc.assert, which shrinks a failure; throws fast-check's report and the case's. */
async function assertShrunk(mode: WaitMode, seed: number, path: string, header: string): Promise<void> {
	const { property, lastFailure } = moneyProperty(mode);
	try {
		await fc.assert(property, { seed, path, numRuns: 1 });
	} catch (error) {
		const report = (error as Error).message.split('\nHint:')[0];
		throw new Error(`${header}\n${report}\nThe smallest counterexample found:\n${lastFailure()}`);
	}
}

/** Failures replayed in turn until one fails again (some depend on timing and pass when run alone). */
const REPLAYS = 5;

/**
 * Fails with the first failure that fails again when replayed, shrunk by fast-check (its seed, path and
 * counterexample), or, when none of the first few does (they depend on timing), with the first as first seen.
 */
export async function assertNoFailure(options: SuiteOptions, failures: SuiteFailure[]): Promise<void> {
	if (!failures.length) return;
	const first = failures[0];
	const listed =
		`${failures.length} of ${options.runs} ${options.mode}-mode cases broke a money rule ` +
		`(cases ${failures.map((f) => f.index).join(', ')}).`;
	for (const failure of failures.slice(0, REPLAYS)) {
		const header = `${listed} Replayed and shrunk: seed ${options.seed}, path "${failure.index}".`;
		await assertShrunk(options.mode, options.seed, String(failure.index), header);
	}
	throw new Error(
		`${listed} None of the first ${Math.min(REPLAYS, failures.length)} failed again when replayed; the first ` +
			`(seed ${options.seed}, path "${first.index}") as first seen:\n${describeFailure(first.case, first.report)}\n` +
			`(seed ${options.seed}, path "${first.index}"; ${listed})`,
	);
}
