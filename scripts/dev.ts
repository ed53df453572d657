/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run dev`: the sandbox plus the n8n editor with the package installed from its tarball, credentials in place,
// the example workflows imported and the trigger example published. Prints the URL and login;
// Ctrl+C stops everything.
import os from 'node:os';
import path from 'node:path';

import { activateWorkflow, N8N_VERSION, OWNER, ownerSession, startServer, stopServer } from './realN8n';
import { bootStack, exampleId } from './stack';

async function main(): Promise<void> {
	const port = Number(process.env.N8N_PORT ?? 5678);
	const sandboxPort = Number(process.env.SANDBOX_PORT ?? 4010);
	const userFolder = process.env.MEDIAGEN_DEV_FOLDER ?? path.join(os.homedir(), '.cache/n8n-nodes-mediagen/dev-user');
	console.log(`Starting the sandbox and n8n (the first run installs n8n ${N8N_VERSION}, a few minutes)…`);
	const stack = await bootStack({
		n8nPort: port,
		userFolder,
		sandbox: { port: sandboxPort, durations: { pendingMs: 500, image: 3000, video: 6000, music: 4000 } },
	});
	await activateWorkflow(stack.n8n, exampleId(6));
	await startServer(stack.n8n);
	await ownerSession(stack.n8n);
	console.log(
		[
			'',
			`n8n editor      http://127.0.0.1:${port}   login ${OWNER.email} / ${OWNER.password}`,
			`Sandbox API     ${stack.sandbox.baseUrl}   (credentials "Media Generation sandbox" are set up)`,
			`API key         ${stack.apiKey}`,
			`Trigger URL     ${stack.hookUrl}   (registered as the sandbox account's webhook endpoint)`,
			`Webhook secret  ${stack.webhookSecret}   (the account's signing secret, also the endpoint's: credential ` +
				`"Media Generation sandbox webhook")`,
			`Examples        imported: Workflows → "Media Generation: …"`,
			'Press Ctrl+C to stop.',
		].join('\n'),
	);
	const stop = async () => {
		await stopServer(stack.n8n);
		await stack.sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
