// What a long run of the property suite generated and checked, summed over its cases and printed at its end
// (npm run soak): batches and items per waiting mode, operations and kinds, faults by kind (injected by the sandbox,
// done to deliveries by the relay, 409 busy and 429 answers of the real limits), advice messages followed, rule
// checks made, the rules broken, and per mode how many batches exercised each coverage category (coverage.ts).
import type { BatchCase, WaitMode } from './batchCase';
import { Coverage } from './coverage';
import type { CaseReport } from './runCase';

function add<K>(map: Map<K, number>, key: K, by = 1): void {
	map.set(key, (map.get(key) ?? 0) + by);
}

const table = <K>(map: Map<K, number>) =>
	[...map.entries()]
		.sort((a, b) => b[1] - a[1])
		.map(([k, n]) => `${String(k)} ${n}`)
		.join(', ') || 'none';

export class Summary {
	private readonly batches = new Map<string, number>();
	private readonly items = new Map<string, number>();
	private readonly shapes = new Map<string, number>();
	private readonly faults = new Map<string, number>();
	private readonly rules = new Map<string, number>();
	private readonly broken = new Map<string, number>();
	private readonly failedCases = new Map<string, number>();
	private advice = 0;
	private keyless = 0;
	private again = 0;
	private continueOnFail = 0;
	private capped = 0;
	private readonly coverage = new Coverage();

	add(report: CaseReport, c: BatchCase): void {
		const mode = c.batch.waitMode;
		add(this.batches, mode);
		add(this.items, mode, c.batch.items.length);
		const step = c.batch.step;
		add(this.shapes, step.operation === 'generate' ? `Generate ${step.kind}` : 'Run Look');
		add(this.shapes, `key ${c.batch.requestKey.mode}`);
		if (c.batch.continueOnFail) this.continueOnFail++;
		if (c.batch.maxCredits !== undefined) this.capped++;
		for (const [kind, n] of report.stats.faults) add(this.faults, kind, n);
		for (const [rule, n] of report.stats.rulesChecked) add(this.rules, `rule ${rule}`, n);
		this.advice += report.stats.adviceFollowed;
		this.again += report.stats.followedAgain;
		this.keyless += report.stats.adviceWithoutKey;
		for (const v of report.violations) add(this.broken, `rule ${v.rule}`);
		if (report.violations.length) add(this.failedCases, mode);
		this.coverage.add(mode, report.coverage);
	}

	text(seed: number, wallMs: number): string {
		const total = [...this.batches.values()].reduce((a, b) => a + b, 0);
		return [
			`Property soak, seed ${seed}: ${total} batches in ${Math.round(wallMs / 1000)} s`,
			`  batches per mode: ${table(this.batches)}; items per mode: ${table(this.items)}`,
			`  steps and keys: ${table(this.shapes)}; with Continue On Fail ${this.continueOnFail}; with a cap ${this.capped}`,
			`  faults: ${table(this.faults)}`,
			`  advice messages followed: ${this.advice} (naming no key, not followed: ${this.keyless}; ` +
				`followed again after a follow-up ran out of time: ${this.again})`,
			`  rule checks: ${table(this.rules)}`,
			`  rules broken: ${table(this.broken)}; cases with a broken rule per mode: ${table(this.failedCases)}`,
			...[...this.batches.keys()].map((mode) => `  ${this.coverage.line(mode as WaitMode)}`),
		].join('\n');
	}
}
