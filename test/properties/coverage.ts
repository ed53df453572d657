// What the generated batches exercised, counted per batch by the sandbox's log and ledger and the relay's record:
// (a) something was charged, (b) an answer to a submission was lost (drop_after, malformed or late), (c) a
// submission was handled late and accepted (a run made or given back after the cut), (d) the node heard a 409 busy,
// (e) the cap was hit (a cap refusal, or an execution's spend reaching the cap), (f) pause mode: an execution's calls
// went to another n8n process (a restart or a second process). npm test prints one line per mode and fails when a
// count falls under its floor, so a schedule that stops producing a fault fails instead of passing quietly; the
// soak prints the same counts.
import type { BatchCase, WaitMode } from './batchCase';
import type { ExecutionRecord } from './execute';
import { keyOf, LOST, submissionsIn } from './ledgerView';
import { shownText } from './rules';
import type { Stage } from './stage';

export const CATEGORIES = ['charged', 'lost', 'late', 'busy', 'cap', 'otherProcess'] as const;
export type Category = (typeof CATEGORIES)[number];

const LABELS: Record<Category, string> = {
	charged: 'charged',
	lost: 'lost an answer',
	late: 'handled late',
	busy: 'heard 409 busy',
	cap: 'hit the cap',
	otherProcess: 'resumed by another process',
};

/** Categories that do not apply to a waiting mode (printed n/a, never asserted). */
const NOT_APPLICABLE: Record<WaitMode, Category[]> = { poll: ['otherProcess'], pause: [] };

/**
 * The least share of batches of each category that `npm test` accepts, per mode: about half of the least its seeds
 * produced in 300 batches over several runs (poll, seed 20261127: charged 164, lost 151, late 50, busy 6 to 10, cap
 * 83; pause, seed 20261128: charged 137, lost 115, late 48, busy 13 to 25, cap 107, another process 31 to 37). 409s
 * depend on timing: a loaded machine hears fewer.
 */
export const FLOORS: Record<WaitMode, Partial<Record<Category, number>>> = {
	poll: { charged: 0.26, lost: 0.25, late: 0.08, busy: 0.01, cap: 0.13 },
	pause: { charged: 0.22, lost: 0.19, late: 0.08, busy: 0.02, cap: 0.17, otherProcess: 0.05 },
};

/** Floors are not checked under this many batches (a handful of cases says nothing about a share). */
const FLOOR_MIN_BATCHES = 100;

/** Injected faults after which the node never had the answer; the node does hear a 409 that came slow. */
const UNHEARD = new Set([...LOST, 'drop']);
const CAP_REFUSAL =
	/Max Credits per Execution (?:\(\d+\) reached|is \d+:|refused|with Waiting → Pause: this run's price is not known)/;

/** The categories one case exercised, read once every execution of it is over. */
export function coverageOf(stage: Stage, c: BatchCase, executions: ExecutionRecord[]): Category[] {
	const faults = new Set<Category>();
	const net = new Map<string, number>();
	for (const line of stage.sandbox.engine.ledger)
		if (line.ownerId === stage.account.id && line.runId && !stage.holders.has(line.runId))
			net.set(line.runId, (net.get(line.runId) ?? 0) - line.delta);
	if ([...net.values()].some((credits) => credits > 0)) faults.add('charged');
	for (const entry of submissionsIn(stage.sandbox, stage.account.id)) {
		if (LOST.has(String(entry.fault))) faults.add('lost');
		if (entry.fault === 'late' && entry.status === 202 && keyOf(entry) !== undefined) faults.add('late');
		if (entry.status === 409 && !UNHEARD.has(String(entry.fault))) faults.add('busy');
	}
	const cap = c.batch.maxCredits;
	if (cap !== undefined) {
		const spent = (e: ExecutionRecord) => e.created.reduce((sum, id) => sum + Math.max(0, net.get(id) ?? 0), 0);
		const refused = (e: ExecutionRecord) => CAP_REFUSAL.test(`${shownText(e)}\n${JSON.stringify(e.items)}`);
		if (executions.some((e) => spent(e) >= cap || refused(e))) faults.add('cap');
	}
	if (executions.some((e) => e.processes > 1)) faults.add('otherProcess');
	return CATEGORIES.filter((k) => faults.has(k));
}

/** Batches per category, per waiting mode. */
export class Coverage {
	private readonly batches = new Map<WaitMode, number>();
	private readonly counts = new Map<string, number>();

	add(mode: WaitMode, categories: Category[]): void {
		this.batches.set(mode, (this.batches.get(mode) ?? 0) + 1);
		for (const k of categories) this.counts.set(`${mode} ${k}`, (this.counts.get(`${mode} ${k}`) ?? 0) + 1);
	}

	count(mode: WaitMode, category: Category): number {
		return this.counts.get(`${mode} ${category}`) ?? 0;
	}

	/** "pause coverage, 300 batches: charged 201, lost an answer 90, …, resumed by another process 40". */
	line(mode: WaitMode): string {
		const parts = CATEGORIES.map((k) =>
			NOT_APPLICABLE[mode].includes(k) ? `${LABELS[k]} n/a` : `${LABELS[k]} ${this.count(mode, k)}`,
		);
		return `${mode} coverage, ${this.batches.get(mode) ?? 0} batches: ${parts.join(', ')}`;
	}

	/** The categories under their floor, as one sentence each (none under FLOOR_MIN_BATCHES batches). */
	shortfalls(mode: WaitMode): string[] {
		const batches = this.batches.get(mode) ?? 0;
		if (batches < FLOOR_MIN_BATCHES) return [];
		return Object.entries(FLOORS[mode]).flatMap(([k, share]) => {
			const least = Math.ceil(share! * batches);
			const n = this.count(mode, k as Category);
			return n >= least
				? []
				: [`${mode} mode: ${n} of ${batches} batches ${LABELS[k as Category]}, under the floor of ${least}`];
		});
	}
}
