/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// One case from start to end: its stage, the first execution and the money rules on it, then each advice a message
// gave followed literally (faults off), with the rules on that execution too and rule 3 between them. Returns every
// violation found (not only the first) and what was exercised, for the soak's summary.
import type { BatchCase } from './batchCase';
import { adviceIn, checkAdviceFollowed, outOfTimeFor, toFollow } from './advice';
import { checkClaims } from './claims';
import { coverageOf, type Category } from './coverage';
import { execute, type ExecutionRecord } from './execute';
import { runFacts } from './ledgerView';
import { checkCap, checkChargedRunsShown, checkNothingTwice, type Checked, type Violation } from './rules';
import { stageCase, type Stage } from './stage';
import { wallSetTimeout } from './warpClock';

export interface CaseStats {
	mode: string;
	items: number;
	/** Faults the sandbox injected (by kind), the relay's actions on deliveries, 409 busy answers. */
	faults: Map<string, number>;
	adviceFollowed: number;
	/** Follow-ups run again because the last ran out of its time limit before the runs came back. */
	followedAgain: number;
	adviceWithoutKey: number;
	/** Rule checks made, by rule number. */
	rulesChecked: Map<number, number>;
}

export interface CaseReport {
	violations: Violation[];
	stats: CaseStats;
	executions: ExecutionRecord[];
	/** Each request key's submissions as the sandbox answered them ("202", "drop_after→202", "late→202" …). */
	submissions: Record<string, string[]>;
	/** What the case exercised (coverage.ts); none when it hung. */
	coverage: Category[];
}

/**
 * PROPERTY_FOCUS (a regular expression over "rule N: detail") makes only the violations it matches count, so that
 * fast-check shrinks towards one kind of failure while others are still known (a tool for finding them one by one).
 */
const FOCUS = process.env.PROPERTY_FOCUS ? new RegExp(process.env.PROPERTY_FOCUS) : undefined;

/** The violations that count (all of them unless PROPERTY_FOCUS says otherwise). */
export const counted = (violations: Violation[]) =>
	FOCUS ? violations.filter((v) => FOCUS.test(`rule ${v.rule}: ${v.detail}`)) : violations;

/** Most advice keys followed per case: each is a whole execution more. */
export const ADVICE_PER_CASE = Number(process.env.PROPERTY_ADVICE ?? 2);
/** Most executions following one advice: again while the last ran out of its time limit before the run came back. */
const FOLLOWS_PER_ADVICE = 3;
/** Wall-clock time a case may take before it counts as hanging. */
const CASE_WALL_LIMIT_MS = 120_000;

function tally<K>(map: Map<K, number>, key: K, by = 1): void {
	map.set(key, (map.get(key) ?? 0) + by);
}

function checkExecution(c: Checked, record: ExecutionRecord, earlier: ExecutionRecord[], stats: CaseStats) {
	const found = [
		...checkChargedRunsShown(c, record),
		...checkNothingTwice(c, record, earlier),
		...checkCap(c, record),
		...checkClaims(c, record),
	];
	for (const rule of [1, 2, 5]) tally(stats.rulesChecked, rule);
	if (c.case.batch.maxCredits !== undefined) tally(stats.rulesChecked, 4);
	return found;
}

/** What the sandbox answered to each submission, by request key (an injected fault before the arrow). */
function submissionsOf(stage: Stage): Record<string, string[]> {
	const out: Record<string, string[]> = {};
	for (const entry of stage.sandbox.engine.log) {
		if (entry.method !== 'POST' || !entry.path.startsWith('/v1/generations')) continue;
		const key = String((entry.body as { requestKey?: unknown } | undefined)?.requestKey ?? '(unread)');
		(out[key] ??= []).push(entry.fault ? `${entry.fault}→${entry.status}` : String(entry.status));
	}
	return out;
}

function faultsSeen(stage: Stage, stats: CaseStats): void {
	for (const entry of stage.sandbox.engine.log) {
		if (entry.fault) tally(stats.faults, entry.fault === '429' ? '429 (injected)' : entry.fault);
		else if (entry.status === 409) tally(stats.faults, '409 busy');
		else if (entry.status === 429) tally(stats.faults, '429 (rate window)');
	}
	for (const [action, n] of stage.relay?.applied ?? [])
		if (action !== 'pass') tally(stats.faults, `delivery ${action}`, n);
}

async function runStaged(c: BatchCase, stage: Stage, stats: CaseStats): Promise<CaseReport> {
	const facts = () => runFacts(stage.sandbox, stage.account.id, c.account.priceFactor);
	const checked: Checked = { case: c, facts: new Map(), holders: stage.holders };
	const first = await execute(stage, c.batch, 'first run');
	checked.facts = facts();
	const violations = checkExecution(checked, first, [], stats);
	faultsSeen(stage, stats);
	const { advice, keyless } = adviceIn(first, checked.facts);
	stats.adviceWithoutKey += keyless;
	// Advice that names no value for Request Key cannot be followed literally.
	if (keyless)
		violations.push({
			rule: 3,
			execution: first.label,
			detail: `${keyless} message(s) advise Request Key without a value`,
		});
	stage.sandbox.faults.set([]);
	stage.relay?.script([]);
	const executions = [first];
	for (const a of toFollow(advice, ADVICE_PER_CASE)) {
		const before = checked.facts;
		const follows: ExecutionRecord[] = [];
		do {
			const again = follows.length ? ` (again: the last ran out of time)` : '';
			const follow = await execute(stage, c.batch, `advice: Request Key ${a.value ?? '(as it is)'}${again}`, a.value);
			checked.facts = facts();
			violations.push(...checkExecution(checked, follow, executions, stats));
			executions.push(follow);
			follows.push(follow);
		} while (follows.length < FOLLOWS_PER_ADVICE && outOfTimeFor(checked, before, follows, a, first));
		stats.followedAgain += follows.length - 1;
		violations.push(...checkAdviceFollowed(checked, before, follows, a, first));
		tally(stats.rulesChecked, 3);
		stats.adviceFollowed++;
	}
	return {
		violations,
		stats,
		executions,
		submissions: submissionsOf(stage),
		coverage: coverageOf(stage, c, executions),
	};
}

export async function runCase(c: BatchCase): Promise<CaseReport> {
	const stats: CaseStats = {
		mode: c.batch.waitMode,
		items: c.batch.items.length,
		faults: new Map(),
		adviceFollowed: 0,
		followedAgain: 0,
		adviceWithoutKey: 0,
		rulesChecked: new Map(),
	};
	const stage = await stageCase(c);
	let timer: ReturnType<typeof setTimeout> | undefined;
	const hang = new Promise<CaseReport>((resolve) => {
		timer = wallSetTimeout(() => {
			const detail = `the case did not finish within ${CASE_WALL_LIMIT_MS / 1000} s of wall-clock time`;
			const violations: Violation[] = [{ rule: 1, execution: 'first run', detail }];
			resolve({ violations, stats, executions: [], submissions: {}, coverage: [] });
		}, CASE_WALL_LIMIT_MS);
	});
	try {
		return await Promise.race([runStaged(c, stage, stats), hang]);
	} finally {
		clearTimeout(timer);
		await stage.close();
	}
}
