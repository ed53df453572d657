/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 2. Request economy: 60 items at the spec's rate limits (20 submissions and 240 reads a minute per
// identity), with the sandbox's clock scaled so a minute lasts 6 s: HTTP requests per run and 429s.
import { runNode } from '../test/helpers/engine';
import { startBackend } from '../test/helpers/sandbox';

const N = 60;
const DURATION_MS = 1000;
const POLL_S = 1;
const SCALE = 0.1;

async function main(): Promise<void> {
	const backend = await startBackend(
		{ timeScale: SCALE, durations: { pendingMs: 0, image: DURATION_MS, video: DURATION_MS, music: DURATION_MS } },
		{ concurrency: 3, credits: 10_000 },
	);
	const started = Date.now();
	const r = await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: '={{ $json.p }}',
			waiting: { pollIntervalSeconds: POLL_S },
		},
		items: Array.from({ length: N }, (_, i) => ({ json: { p: `economy ${i}` } })),
		credentials: backend.apiCredentials,
	});
	if (r.error || r.items.length !== N) throw new Error(`batch failed: ${r.error?.message}`);
	const api = backend.requests().filter((e) => e.path.startsWith('/v1/'));
	const limited = api.filter((e) => e.status === 429).length;
	const perRun = api.length / N;
	const budget = 2 + Math.ceil(DURATION_MS / (POLL_S * 1000));
	const posts = api.filter((e) => e.method === 'POST').length;
	console.log(
		`economy: N=${N} run=${DURATION_MS / 1000}s poll=${POLL_S}s limits 20 submits/240 reads per ` +
			`${(60 * SCALE).toFixed(0)}s window | ${api.length} API requests (${posts} submissions), ` +
			`${perRun.toFixed(2)} per run (target ≤ ${budget}), 429s: ${limited} (target 0), ` +
			`${((Date.now() - started) / 1000).toFixed(1)}s`,
	);
	await backend.sandbox.close();
}

void main().then(() => process.exit(0));
