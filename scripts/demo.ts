/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run demo`: the main job on a fresh machine. Builds (npm script), starts the sandbox, runs
// real n8n headless with the package, the sandbox credentials and the example workflows, executes
// examples 1–5 and prints what happened: runs, credits spent, where the files are. Then it stops
// everything it started.
import { executeWorkflow, N8N_VERSION, type RunData } from './realN8n';
import { bootStack, EXAMPLES, exampleId } from './stack';

function summarise(run: RunData): { runs: Array<Record<string, unknown>>; files: string[]; errors: string[] } {
	const runs: Array<Record<string, unknown>> = [];
	const files: string[] = [];
	const errors: string[] = [];
	for (const [node, tasks] of Object.entries(run.resultData.runData)) {
		for (const task of tasks) {
			if (task.error) errors.push(`${node}: ${task.error.message}`);
			for (const item of task.data?.main?.[0] ?? []) {
				if (typeof item.json.id === 'string' && String(item.json.id).startsWith('gen_')) runs.push(item.json);
				if (typeof item.json.fileName === 'string') files.push(item.json.fileName);
				for (const b of Object.values(item.binary ?? {}))
					if (b.id) files.push(`${b.fileName} (${b.mimeType}, ${b.fileSize}) in n8n's binary store`);
			}
		}
	}
	if (run.resultData.error) errors.push(run.resultData.error.message);
	return { runs, files: [...new Set(files)], errors };
}

async function main(): Promise<void> {
	const started = Date.now();
	console.log(
		`Starting the sandbox and preparing real n8n (the first run installs n8n ${N8N_VERSION} into ~/.cache, a few minutes)…`,
	);
	const stack = await bootStack();
	const { sandbox, n8n } = stack;
	console.log(`Sandbox: ${sandbox.baseUrl}   n8n user folder: ${n8n.userFolder}\n`);
	let failures = 0;
	const seen = new Set<string>();
	try {
		for (let i = 1; i <= 5; i++) {
			const name = EXAMPLES[i - 1];
			const t = Date.now();
			const summary = summarise(await executeWorkflow(n8n, exampleId(i)));
			const fresh = summary.runs.filter((r) => !seen.has(String(r.id)));
			fresh.forEach((r) => seen.add(String(r.id)));
			console.log(`▶ ${name}  (${((Date.now() - t) / 1000).toFixed(1)} s)`);
			for (const r of fresh) console.log(`   run ${r.id}  ${r.kind}/${r.model}  ${r.status}  cost ${r.cost}`);
			for (const f of summary.files) console.log(`   file ${f}`);
			for (const e of summary.errors) console.log(`   ERROR ${e}`);
			if (summary.errors.length || !fresh.length) failures++;
		}
		const spent = -sandbox.engine.ledger
			.filter((l) => l.ownerId === stack.accountId && l.reason !== 'topup')
			.reduce((s, l) => s + l.delta, 0);
		console.log(
			`\n${seen.size} runs, ${spent} credits spent (sandbox credits; balance ${sandbox.engine.balanceOf(stack.accountId)}).`,
		);
		console.log(
			`Files written by "Save File": ${n8n.outputDir}; every other file is in n8n's binary store under ${n8n.userFolder}/.n8n/storage.`,
		);
		console.log(
			`The trigger example (06) needs a running n8n: try "npm run dev". Done in ${((Date.now() - started) / 1000).toFixed(0)} s.`,
		);
	} finally {
		await sandbox.close();
	}
	if (failures) {
		console.error(`${failures} example(s) did not complete.`);
		process.exitCode = 1;
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
