/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The sandbox for bench/scale.ts, in a process of its own: its CPU and memory are not the n8n side's.
// Prints one JSON line (addresses, the account's key and signing secret) and runs until killed.
import { startSandbox } from '../sandbox/server';

async function main(): Promise<void> {
	const sandbox = await startSandbox({
		timeScale: 0.01,
		durations: { pendingMs: 0, image: 1_000, video: 1_000, music: 1_000 },
	});
	const account = sandbox.engine.createAccount({ tier: 'paid', credits: 1_000_000, concurrency: 3 });
	console.log(
		JSON.stringify({
			baseUrl: sandbox.baseUrl,
			rootUrl: sandbox.rootUrl,
			apiKey: account.keys[0],
			secret: account.webhookSecret,
		}),
	);
}

void main();
