// `npx n8n-node lint` (strict mode: eslint.config.mjs must be n8n's default) on the package as n8n's scanner
// sees it: package.json, nodes/ and credentials/ (plus index.ts). Run at the repo root it would also apply the
// node rules (no process, no setTimeout, no console...) to the sandbox, tests, scripts and benchmarks, which
// never ship; eslint.repo.config.mjs lints those. Passes while the only finding is the author's missing e-mail.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { describeFinding, findingsFromStylish, isMissingAuthorEmail } from './findings';
import { authorEmail } from './readiness';

const root = path.resolve(__dirname, '../..');
const SHIPPED = ['package.json', 'eslint.config.mjs', 'tsconfig.json', 'index.ts', 'nodes', 'credentials'];

function stagePackage(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-node-lint-'));
	for (const entry of SHIPPED) fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
	// ESLint walks real folders only, so the sources are copied; node_modules is only resolved through.
	fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
	return dir;
}

function main(): number {
	const dir = stagePackage();
	try {
		const run = spawnSync('npx', ['n8n-node', 'lint'], { cwd: dir, encoding: 'utf8' });
		const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
		process.stdout.write(output.split(dir).join('.'));
		if (run.status === 0) return 0;
		if (/Strict mode violation/.test(output)) return 1;
		const emailIsSet = authorEmail(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))) !== '';
		const findings = findingsFromStylish(output, dir);
		const errors = findings.filter((finding) => finding.severity === 'error');
		if (errors.length > 0 && errors.every((finding) => isMissingAuthorEmail(finding, emailIsSet))) {
			for (const finding of findings) console.log(describeFinding(finding, emailIsSet));
			console.log('n8n-node lint: nothing but the author e-mail, which a maintainer sets before publishing.');
			return findings.length === errors.length ? 0 : 1;
		}
		console.error(`n8n-node lint failed (exit ${run.status}): fix the findings above.`);
		return 1;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

process.exitCode = main();
