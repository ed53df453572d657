/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench [-- <suite>] [--write]`: the benchmarks, none part of CI. No suite: the in-process ones against
// the sandbox (bench/run.ts). `n8n`: one job four ways in real n8n (bench/n8n/run.ts, `--scale <s>`).
// `memory-modes`: n8n's own memory per binary data mode (bench/n8n/memoryModes.ts). `--write` stores the figures
// in bench/RESULTS.md, each suite in its own part of it. `pause-scale`: pause mode and Poll at 40, 300 and 1,000
// images in real n8n, each supported version (bench/n8n/pauseScale.ts, issue #45). `dying`: the queue suite's
// dying-process cases under 300 images (bench/n8n/dying.ts, issue #54). The entry lives in bench/, which
// imports scripts/ (realN8n.ts) and is never imported by it: one direction only.
const SUITES: Record<string, () => Promise<unknown>> = {
	'': () => import('./run'),
	n8n: () => import('./n8n/run'),
	'memory-modes': () => import('./n8n/memoryModes'),
	'pause-scale': () => import('./n8n/pauseScale'),
	dying: () => import('./n8n/dying'),
};

const first = process.argv[2];
const suite = first === undefined || first.startsWith('-') ? '' : first;
const start = SUITES[suite];
if (!start) {
	console.error(
		`bench: no suite ${suite}; the suites are: n8n, memory-modes, pause-scale, dying, or none for the in-process ones`,
	);
	process.exitCode = 2;
} else {
	start().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}
