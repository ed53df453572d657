// The printed figures of `npm run bench:n8n` (one line each, with their inputs) and their block in
// bench/RESULTS.md, which `npm run bench --write` keeps as it is.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

import { CONCURRENCY, REAL_DURATIONS_MS, SPREAD, type JobItem } from './job';
import type { VariantResult } from './variant';

export type { VariantResult };

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const x = (n: number) => n.toFixed(2);

export interface Inputs {
	results: VariantResult[];
	items: JobItem[];
	durations: number[];
	scale: number;
	seed: number;
	optimalMs: number;
	optimalPerKindMs: number;
	perKindMs: number;
	userWaitSeconds: number;
	ourPollSeconds: number;
	idlePerSecond: number;
	n8nVersion: string;
}

function kindLine(inputs: Inputs, kind: 'video' | 'image'): string {
	const mine = inputs.durations.filter((_, n) => inputs.items[n].kind === kind);
	const real = REAL_DURATIONS_MS[kind] / 1000;
	return (
		`${mine.length} ${kind} ${real} s ± ${SPREAD * 100} % → ${real * inputs.scale} s ` +
		`(seeded: ${s(Math.min(...mine))}–${s(Math.max(...mine))})`
	);
}

export function printFigures(inputs: Inputs): string[] {
	const { results, items, optimalMs } = inputs;
	const by = (id: string) => results.find((r) => r.variant.label === id)!;
	const [serial, batched, poll, pause] = ['hand-built serial', 'hand-built batched', 'ours poll', 'ours pause'].map(by);
	const n = items.length;
	const work = inputs.durations.reduce((a, b) => a + b, 0);
	const each = (f: (r: VariantResult) => string) => results.map((r) => `${r.variant.label} ${f(r)}`).join(', ');
	const lines = [
		`n8n: job | ${kindLine(inputs, 'video')}, ${kindLine(inputs, 'image')}; ${s(work)} of runs; ` +
			`time scale ${inputs.scale}, seed ${inputs.seed}, account concurrency ${CONCURRENCY}, ` +
			`n8n ${inputs.n8nVersion} (one process, SQLite); hand-built: Wait ${inputs.userWaitSeconds} s ` +
			`(5 s × ${inputs.scale}), Retry On Fail 5 tries ${inputs.userWaitSeconds} s apart; ` +
			`ours: Check Every ${inputs.ourPollSeconds} s`,
		`n8n: ideal | best split of the seeded runs over ${CONCURRENCY} slots ${s(optimalMs)} (the ratios use this); ` +
			`best split one kind after the other ${s(inputs.optimalPerKindMs)} (the least any one-kind-at-a-time ` +
			`client can take); per kind ceil(N / ${CONCURRENCY}) × mean duration ${s(inputs.perKindMs)}`,
		`n8n: makespan | ${each((r) => `${s(r.makespanMs)} (${x(r.makespanMs / optimalMs)} × ideal)`)}; ` +
			`pause target ≤ 1.10 × ideal`,
		`n8n: speed-up of ours poll | ${x(serial.makespanMs / poll.makespanMs)}× the serial workflow (target ≥ 2.5), ` +
			`${x(batched.makespanMs / poll.makespanMs)}× the batched one (target ≥ 1.15); ours pause ` +
			`${x(serial.makespanMs / pause.makespanMs)}× / ${x(batched.makespanMs / pause.makespanMs)}×`,
		`n8n: ours against one kind at a time | poll ${x(poll.makespanMs / inputs.optimalPerKindMs)} ×, pause ` +
			`${x(pause.makespanMs / inputs.optimalPerKindMs)} × the best one-kind-at-a-time split ` +
			`${s(inputs.optimalPerKindMs)} (pause ${x(pause.makespanMs / inputs.perKindMs)} × the per-kind ` +
			`ceil(N / ${CONCURRENCY}) × mean)`,
		`n8n: HTTP requests per run | ${each((r) => {
			const a = r.account;
			const other = a.apiRequests - a.submissions - a.reads;
			return (
				`${x((a.apiRequests + r.delivered) / n)} (${x(a.submissions / n)} submit + ${x(a.reads / n)} read` +
				`${other ? ` + ${x(other / n)} other` : ''} + ${x(r.delivered / n)} download)`
			);
		})}`,
		`n8n: 409 busy / 429 rate-limited answers | ${each((r) => `${r.account.busy409} / ${r.account.limited429}`)}`,
		`n8n: credits | ${each((r) => {
			const double = r.account.charges - r.account.promptsCharged.size;
			return `${r.account.charges} charges for ${r.delivered} runs delivered (${double} double)`;
		})}; target for ours: 0 double`,
		`n8n: failed items | ${each((r) => `${r.failedItems}${r.error ? ` (${r.error.slice(0, 80)})` : ''}`)}; ` +
			`target for ours: 0`,
		`n8n: n8n process busy, CPU time (idle ${x(inputs.idlePerSecond * 1000)} ms/s subtracted) | ${each((r) => {
			const net = r.cpuSeconds - inputs.idlePerSecond * (r.makespanMs / 1000);
			return `${net.toFixed(1)} s`;
		})}`,
		`n8n: execution held (running, not waiting) | ${each((r) => s(r.heldMs))}; ` +
			`pause: its nodes' running time, the others run from start to end`,
	];
	for (const line of lines) console.log(line);
	if (pause.status !== 'success' || poll.status !== 'success')
		console.log(`n8n: note | execution status: ${each((r) => r.status)}`);
	return lines;
}

const START = '<!-- bench:n8n -->';
const END = '<!-- /bench:n8n -->';

/** The bench:n8n block of RESULTS.md, or '' (kept by `npm run bench --write`). */
export function n8nBlockOf(file: string): string {
	if (!existsSync(file)) return '';
	const text = readFileSync(file, 'utf8');
	const from = text.indexOf(START);
	const to = text.indexOf(END);
	return from >= 0 && to > from ? text.slice(from, to + END.length) : '';
}

const NOTES = `
### What limits each figure (real n8n)

- **ideal**: the best split of the 18 seeded durations over 3 slots, found by exhaustive search: no client can
  finish sooner, even with free reads and downloads. The per-kind formula (ceil(N / 3) × mean, kinds one after
  the other) is printed too; it is looser.
- **makespan**: n8n's own start and stop times of the execution. The hand-built serial workflow runs the 18 runs
  one after another; the batched one waits for the slowest run of each batch of 3 and polls every 5 s (scaled).
  Ours keeps 3 runs in flight and starts the next item as soon as a slot frees; poll mode sees a run done up to
  one read late (Check Every 3 s scaled to the node's 1 s minimum, then planned from the durations seen for
  the model in this process, see \`bench/polling.ts\`); pause mode hears of each run from its webhook at once, so
  it is held back only by n8n's resume path (load the execution, run the webhook, save it) and the downloads.
- **HTTP requests per run**: counted by the sandbox per account key (submissions, reads), plus one GET per file
  delivered. The hand-built batched workflow reads every run of its batch until the slowest is done.
- **409 / 429**: the hand-built workflows never have more runs in flight than the account allows, so they see
  busy answers only when a run is still counted as active just after it ended; HTTP Request's Retry On Fail
  (5 tries, 5 s apart scaled) answers them as such a user would have it set. Our node waits out both.
- **credits**: ledger lines per account; "double" is a prompt charged more than once.
- **CPU time**: user + system time of the n8n process from /proc/<pid>/stat, minus what the idle process used
  over as long. It includes n8n's own work for the execution (saving run data to SQLite after every node,
  loading and saving a waiting execution on each resume), so it is a cost per workflow, not per node.
- **execution held**: the hand-built workflows and poll mode hold their execution (and in queue mode a worker)
  for the whole makespan: a Wait of under 65 s sleeps inside the process. Pause mode holds it only while its
  nodes run: the submissions before the pause and each resume call.
`;

export function writeN8nResults(file: string, lines: string[], machine: string): void {
	const header =
		`## Real n8n: the node against hand-built workflows (\`npm run bench:n8n\`)\n\n` +
		`Run on ${new Date().toISOString().slice(0, 10)}; machine: ${machine}. One run; all figures below come ` +
		`from it.\n\n`;
	const block = `${START}\n${header}\`\`\`\n${lines.join('\n')}\n\`\`\`\n${NOTES}${END}`;
	const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
	const old = n8nBlockOf(file);
	writeFileSync(file, old ? text.replace(old, block) : `${text.trimEnd()}\n\n${block}\n`);
}
