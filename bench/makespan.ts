/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 1. Batch makespan: 12 image items, concurrency 3, fixed run duration, 1 s polls, through
// WorkflowExecute; against the ideal ceil(N / concurrency) × duration and a serial baseline
// (the same node held to one run in flight by an account whose concurrency is 1).
import { runNode } from '../test/helpers/engine';
import { startBackend } from '../test/helpers/sandbox';

const N = 12;
const CONCURRENCY = 3;
const DURATION_MS = 3000;

async function batch(concurrency: number): Promise<number> {
	const backend = await startBackend(
		{ durations: { pendingMs: 0, image: DURATION_MS, video: DURATION_MS, music: DURATION_MS } },
		{ concurrency },
	);
	const started = Date.now();
	const r = await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: '={{ $json.p }}',
			waiting: { pollIntervalSeconds: 1 },
		},
		items: Array.from({ length: N }, (_, i) => ({ json: { p: `bench ${i}` } })),
		credentials: backend.apiCredentials,
	});
	const elapsed = Date.now() - started;
	if (r.error || r.items.length !== N) throw new Error(`batch failed: ${r.error?.message}`);
	await backend.sandbox.close();
	return elapsed;
}

async function main(): Promise<void> {
	const ours = await batch(CONCURRENCY);
	const serial = await batch(1);
	const ideal = Math.ceil(N / CONCURRENCY) * DURATION_MS;
	console.log(
		`makespan: N=${N} concurrency=${CONCURRENCY} run=${DURATION_MS / 1000}s poll=1s | ` +
			`ours ${(ours / 1000).toFixed(2)}s, ideal ${(ideal / 1000).toFixed(2)}s, ` +
			`ours/ideal ${(ours / ideal).toFixed(3)} (target ≤ 1.15) | serial ${(serial / 1000).toFixed(2)}s, ` +
			`speed-up ${(serial / ours).toFixed(2)}× (target ≥ 2.7)`,
	);
}

void main().then(() => process.exit(0));
