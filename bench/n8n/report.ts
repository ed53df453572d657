/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The printed figures of `npm run bench -- n8n` (one line each, with their inputs) and their block in
// bench/RESULTS.md, which `npm run bench -- --write` keeps as it is.
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
		`n8n: n8n process busy, CPU time (user + system, n8n and its task runner; idle n8n uses ` +
			`${(inputs.idlePerSecond * 1000).toFixed(0)} ms/s, subtracted over the makespan) | ${each((r) => {
				const net = r.cpuSeconds - inputs.idlePerSecond * (r.makespanMs / 1000);
				return `${net.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} s before)`;
			})}`,
		`n8n: execution held (n8n lists it running, not waiting; sampled every 0.1 s) | ` +
			`${each((r) => `${s(r.heldMs)} (${x(r.heldMs / r.makespanMs)} of its makespan)`)}`,
	];
	for (const line of lines) console.log(line);
	if (pause.status !== 'success' || poll.status !== 'success')
		console.log(`n8n: note | execution status: ${each((r) => r.status)}`);
	return lines;
}

const START = '<!-- bench:n8n -->';
const END = '<!-- /bench:n8n -->';

/** The bench:n8n block of RESULTS.md, or '' (kept by `npm run bench -- --write`). */
export function n8nBlockOf(file: string): string {
	if (!existsSync(file)) return '';
	const text = readFileSync(file, 'utf8');
	const from = text.indexOf(START);
	const to = text.indexOf(END);
	return from >= 0 && to > from ? text.slice(from, to + END.length) : '';
}

const NOTES = `
### What limits each figure (real n8n)

- **the job and the scale**: 6 videos then 12 images, one webhook call, in one n8n 2.40.7 process with the package
  installed from its tarball. Every time span is scaled by the printed factor (run durations, the 5 s Wait, the
  retry wait, the service's rate windows), so the whole bench takes minutes; our node's Check Every cannot go
  below 1 s, so at scale 0.2 it reads as often as the hand-built Wait (both "5 s" in real time). The machine is
  shared and has 2 cores: other work on it shows in the CPU figures more than in the makespans.
- **ideal**: the best split of the 18 seeded durations over 3 slots, found by exhaustive search: no client can
  finish sooner, even with free reads and downloads. Printed beside it: the best split when one kind runs after
  the other, and issue #18's per-kind formula (ceil(N / 3) × mean duration, kinds one after the other).
- **ours, and what holds it back**: one Generate step takes both kinds (Kind and Model come from each item by
  expression) and keeps 3 runs in flight from one pool of slots: a slot a run frees goes to the next item at
  once, whatever its kind. Items start in input order (videos first here), not longest first: the durations are
  unknown beforehand. Poll mode sees a run done up to one read late (1 s here). Pause mode hears of each run from
  its webhook at once; each delivery then costs an n8n resume call (load the waiting execution, check the
  signature, read the newest runs, submit the next item) before the next run starts.
- **hand-built**: serial runs the 18 runs one after another; batched starts 3, waits until the slowest of the
  3 is done (an IF over \`$input.all()\`), then starts the next 3, reading every run of the batch each pass.
- **HTTP requests per run**: counted by the sandbox per account key (submissions, reads, /me), plus one GET per
  file delivered (file GETs are not under the key). Pause mode reads nothing: the runs are delivered to it.
- **409 / 429**: the hand-built workflows never have more runs in flight than the account allows, so busy
  answers do not come up; HTTP Request's Retry On Fail (5 tries, 5 s apart, scaled) is what such a user
  would set for them. Our node waits both out itself.
- **credits**: ledger lines per account; "double" is a prompt charged more than once.
- **CPU time**: user + system time of the n8n process and its task runner (/proc), less what idle n8n used
  over as long. It is n8n's work for the whole workflow (each node's run saved to SQLite, each Wait pass, each
  resume loading and saving the waiting execution), not only our node's. Pause mode costs more CPU than poll
  mode: each of its 18 resume calls has n8n load the waiting execution, check the signature, look the batch's
  runs up (the "other" requests), download and save the execution again; poll mode's waiting is a timer.
- **execution held**: the hand-built workflows and poll mode hold their execution (and in queue mode a worker)
  for the whole makespan: a Wait of under 65 s sleeps inside the process. Pause mode holds it only while it
  submits and while each resume call runs; n8n lists it as waiting in between (sampled from n8n's database
  every 0.1 s, read-only, so the sampling costs n8n nothing). Resume calls shorter than the sampling interval
  can fall between two samples, so the pause figure is a lower bound; its CPU time is the firmer measure.
`;

export function writeN8nResults(file: string, lines: string[], machine: string): void {
	const header =
		`## Real n8n: the node against hand-built workflows (\`npm run bench -- n8n\`)\n\n` +
		`Run on ${new Date().toISOString().slice(0, 10)}; machine: ${machine}. One run; all figures below come ` +
		`from it.\n\n`;
	const block = `${START}\n\n${header}\`\`\`\n${lines.join('\n')}\n\`\`\`\n${NOTES}\n${END}`;
	const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
	const old = n8nBlockOf(file);
	writeFileSync(file, old ? text.replace(old, block) : `${text.trimEnd()}\n\n${block}\n`);
}
