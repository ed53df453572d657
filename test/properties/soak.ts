/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// npm run soak: the property suite's money rules over many more batches than npm test runs (SOAK_RUNS per waiting
// mode, 2,500 by default, so 5,000 in all), with a random seed (SOAK_SEED to repeat one; pause mode uses the seed plus 1) printed at the start. Ends
// with a summary of what was generated and checked (summary.ts), then fails with the first broken rule, shrunk by
// fast-check, as npm test would. Not part of npm test: jest.config.js matches *.test.ts only.
import { wallNow } from './warpClock';
import type { WaitMode } from './batchCase';
import { assertNoFailure, runCases, type SuiteFailure, type SuiteOptions } from './suite';
import { Summary } from './summary';

const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
const runs = Number(process.env.SOAK_RUNS ?? 2500);
const PARALLEL: Record<WaitMode, number> = { poll: 4, pause: 8 };

test(
	`soak: ${runs} batches per waiting mode`,
	async () => {
		process.stdout.write(
			`Property soak: seed ${seed}, ${runs} batches per waiting mode (SOAK_SEED=${seed} repeats it)\n`,
		);
		const summary = new Summary();
		const started = wallNow();
		const results: Array<{ options: SuiteOptions; failures: SuiteFailure[] }> = [];
		for (const mode of ['poll', 'pause'] as WaitMode[]) {
			let done = 0;
			const options: SuiteOptions = {
				mode,
				seed,
				runs,
				parallel: PARALLEL[mode],
				onReport: (report, c) => {
					summary.add(report, c);
					if (++done % 250 === 0) process.stdout.write(`  ${mode}: ${done} of ${runs} batches\n`);
				},
			};
			results.push({ options, failures: await runCases(options) });
		}
		process.stdout.write(`${summary.text(seed, wallNow() - started)}\n`);
		for (const { options, failures } of results) await assertNoFailure(options, failures);
	},
	24 * 3_600_000,
);
