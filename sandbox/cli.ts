/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run sandbox`: starts the emulator on 127.0.0.1 with a ready account, and prints what to paste into n8n.
import { REALISTIC_DURATIONS } from './config';
import { startSandbox } from './server';

/** Seconds, so a demo shows each state long enough to see. */
const DEMO_DURATIONS = { pendingMs: 500, image: 3000, video: 6000, music: 4000 };

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const port = Number(process.env.SANDBOX_PORT ?? args.find((a) => /^\d+$/.test(a)) ?? 4010);
	const realistic = args.includes('--realistic') || process.env.SANDBOX_PROFILE === 'realistic';
	const strict = args.includes('--strict') || process.env.SANDBOX_STRICT === '1';
	const sandbox = await startSandbox({
		port,
		verbose: args.includes('--verbose'),
		strict,
		durations: { ...(realistic ? REALISTIC_DURATIONS : DEMO_DURATIONS) },
	});
	const account = sandbox.engine.createAccount({
		tier: 'paid',
		credits: 5000,
		concurrency: 3,
		apiKey: process.env.SANDBOX_API_KEY,
	});
	const lines = [
		`Media Generation sandbox listening`,
		`  Base URL        ${sandbox.baseUrl}`,
		`  API key         ${account.keys[0]}`,
		`  Anonymous ID    sandbox-anon-${Date.now().toString(36)}`,
		strict
			? `  Webhook secret  ${account.webhookSecret}   (signs deliveries to registered endpoints only)`
			: `  Webhook secret  ${account.webhookSecret}   (signs deliveries to per-run webhook URLs)`,
		`  Account id      ${account.id}   (control surface: ${sandbox.rootUrl}/_sandbox/...)`,
		`  OpenAPI         ${sandbox.rootUrl}/openapi.yaml`,
		`Durations: ${realistic ? 'realistic' : 'demo (seconds)'}.`,
		...(strict ? ['Strict mode: nothing the spec leaves open is filled in.'] : []),
		'Press Ctrl+C to stop.',
	];
	process.stdout.write(lines.join('\n') + '\n');
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

void main();
