/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run lint`: every static check but the typecheck, one step after another, each printed with its time; all
// steps run and the command fails if any failed. `npm run lint -- imports n8n` runs only the named steps.
// `npm run lint -- --fix` first applies the two fixes (the not-shipped line, then Prettier) and then checks.
import { spawnSync } from 'child_process';
import * as path from 'path';

const root = path.resolve(__dirname, '..');
const tsNode = ['ts-node', '--transpile-only', '--project', 'tsconfig.test.json'];

interface Step {
	name: string;
	what: string;
	check: string[];
	fix?: string[];
}

const STEPS: Step[] = [
	{
		name: 'format',
		what: 'Prettier over the whole tree',
		check: ['prettier', '--check', '.'],
		fix: ['prettier', '--write', '.'],
	},
	{
		name: 'repo',
		what: 'ESLint on sandbox, test, scripts and bench, and line length in nodes and credentials (eslint.repo.config.mjs)',
		check: [
			'eslint',
			'-c',
			'eslint.repo.config.mjs',
			'--no-inline-config',
			...['sandbox', 'test', 'scripts', 'bench', 'nodes', 'credentials'],
		],
	},
	{
		name: 'imports',
		what: 'import rules of nodes/ and credentials/ (scripts/checkImports.ts)',
		check: [...tsNode, 'scripts/checkImports.ts'],
	},
	{
		name: 'n8n',
		what: 'n8n-node lint, strict, at the root (scripts/publishing/n8nNodeLint.ts)',
		check: [...tsNode, 'scripts/publishing/n8nNodeLint.ts'],
		fix: [...tsNode, 'scripts/publishing/markNotShipped.ts'],
	},
	{
		name: 'workflows',
		what: 'actionlint on .github/workflows (scripts/publishing/lintWorkflows.ts)',
		check: [...tsNode, 'scripts/publishing/lintWorkflows.ts'],
	},
];

/** Runs a command from node_modules/.bin in the repo root, its output passed through; true when it exits 0. */
function run(command: string[]): boolean {
	const bin = path.join(root, 'node_modules', '.bin');
	const result = spawnSync(command[0], command.slice(1), {
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
	});
	if (result.error) console.error(result.error.message);
	return result.status === 0;
}

function main(): number {
	const args = process.argv.slice(2);
	const fix = args.includes('--fix');
	const names = args.filter((arg) => arg !== '--fix');
	const unknown = names.filter((name) => !STEPS.some((step) => step.name === name));
	if (unknown.length > 0) {
		console.error(`lint: no step ${unknown.join(', ')}; the steps are ${STEPS.map((s) => s.name).join(', ')}`);
		return 2;
	}
	const steps = names.length > 0 ? STEPS.filter((step) => names.includes(step.name)) : STEPS;
	const failed: string[] = [];
	if (fix) {
		// The not-shipped line before Prettier, which then formats it with the rest.
		const last = (step: Step) => (step.name === 'format' ? 1 : 0);
		for (const step of steps.filter((s) => s.fix).sort((a, b) => last(a) - last(b))) {
			console.log(`== lint ${step.name} --fix`);
			if (!run(step.fix!)) failed.push(`${step.name} (fix)`);
		}
	}
	for (const step of steps) {
		const started = Date.now();
		console.log(`== lint ${step.name}: ${step.what}`);
		const ok = run(step.check);
		const seconds = ((Date.now() - started) / 1000).toFixed(0);
		console.log(`== lint ${step.name}: ${seconds} s${ok ? '' : ', failed'}`);
		if (!ok) failed.push(step.name);
	}
	if (failed.length > 0) console.error(`lint failed: ${failed.join(', ')}`);
	return failed.length > 0 ? 1 : 0;
}

process.exitCode = main();
