/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 6. Pause mode against poll mode: 12 image runs of a fixed duration on 3 slots, through WorkflowExecute.
// How long an n8n process is kept busy per run (poll: the whole execute(); pause: execute() until the pause
// plus every resume call's webhook()), and each mode's makespan against the ideal ceil(N / concurrency) × run.
import { runNode } from '../test/helpers/engine';
import { startBackend } from '../test/helpers/sandbox';
import { startWaitingHost } from '../test/helpers/waitingHost';

const N = 12;
const CONCURRENCY = 3;
// A typical image run (the service: images within a minute; the n8n benchmark uses 20 s).
const DURATION_MS = 20_000;

const parameters = (waitMode: string) => ({
	resource: 'generation',
	operation: 'generate',
	kind: 'image',
	model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
	prompt: '={{ $json.p }}',
	waitMode,
	waiting: { pollIntervalSeconds: 1 },
});
const items = (tag: string) => Array.from({ length: N }, (_, i) => ({ json: { p: `${tag} ${i}` } }));

/** A fresh sandbox and account per mode, so neither spends the other's 20-a-minute submissions. */
async function account() {
	const durations = { pendingMs: 0, image: DURATION_MS, video: DURATION_MS, music: DURATION_MS };
	const backend = await startBackend({ durations }, { concurrency: CONCURRENCY });
	return {
		backend,
		credentials: { ...backend.apiCredentials, mediaGenWebhookApi: { secret: backend.account.webhookSecret } },
	};
}

async function main(): Promise<void> {
	let { backend, credentials } = await account();
	let started = performance.now();
	const poll = await runNode({ parameters: parameters('poll'), items: items('poll'), credentials });
	const pollMs = performance.now() - started;
	if (poll.error || poll.items.length !== N) throw new Error(`poll batch failed: ${poll.error?.message}`);

	const requestsBefore = backend.sandbox.engine.log.length;
	const pollRequests = requestsBefore;
	await backend.sandbox.close();
	({ backend, credentials } = await account());
	const host = await startWaitingHost();
	started = performance.now();
	const paused = await runNode({
		parameters: parameters('pause'),
		items: items('pause'),
		credentials,
		webhookWaitingBaseUrl: host.baseUrl,
	});
	const executeMs = performance.now() - started;
	if (paused.run?.status !== 'waiting') throw new Error(`pause batch did not pause: ${paused.error?.message}`);
	host.hold(paused, credentials);
	const resumed = await host.resumed(paused.executionId, 120_000);
	const pauseMakespan = performance.now() - started;
	if (resumed.error || resumed.items.filter((i) => i.binary?.data).length !== N)
		throw new Error(`pause batch failed: ${resumed.error?.message}`);
	const pauseBusy = executeMs + host.busyMs.reduce((a, b) => a + b, 0);
	const pauseRequests = backend.sandbox.engine.log.length;
	const posts = backend.sandbox.engine.log.filter((e) => e.method === 'POST' && e.path === '/v1/generations').length;

	const ideal = Math.ceil(N / CONCURRENCY) * DURATION_MS;
	const perRun = (ms: number) => `${(ms / N).toFixed(0)} ms`;
	const resumeMs = pauseBusy - executeMs;
	console.log(
		`pause: N=${N} concurrency=${CONCURRENCY} run=${DURATION_MS / 1000}s poll=1s | busy per run: ` +
			`poll ${perRun(pollMs)}, pause ${perRun(pauseBusy)} (execute ${executeMs.toFixed(0)} ms + ` +
			`${host.busyMs.length} resume calls ${resumeMs.toFixed(0)} ms, downloads included), ` +
			`pause/poll ${((pauseBusy / pollMs) * 100).toFixed(2)}% (target < 2%)`,
	);
	console.log(
		`pause: API requests per run | poll ${(pollRequests / N).toFixed(2)}, ` +
			`pause ${(pauseRequests / N).toFixed(2)} (submissions ${posts} for ${N} runs)`,
	);
	console.log(
		`pause: makespan | poll ${(pollMs / 1000).toFixed(2)}s (${(pollMs / ideal).toFixed(3)} × ideal), ` +
			`pause ${(pauseMakespan / 1000).toFixed(2)}s (${(pauseMakespan / ideal).toFixed(3)} × ideal), ` +
			`ideal ${(ideal / 1000).toFixed(2)}s`,
	);
	await host.close();
	await backend.sandbox.close();
}

void main().then(() => process.exit(0));
