/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run lint`'s n8n step: `npx n8n-node lint` as a maintainer runs it, at the repo root (strict mode: eslint.config.mjs must be n8n's
// default). Its node rules reach every .ts file; files that never ship and that those rules flag open with the
// not-shipped directive (markNotShipped.ts), and no shipped file may carry any eslint directive. Passes while the
// only finding is the author's missing e-mail, which a maintainer sets before publishing.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { describeFinding, findingsFromStylish, isMissingAuthorEmail } from './findings';
import { authorEmail } from './readiness';

const root = path.resolve(__dirname, '../..');
const SHIPPED_FOLDERS = ['nodes', 'credentials'];

/** Shipped files that switch a lint rule off for themselves: the scanner would read them as they are. */
function shippedDirectives(): string[] {
	const found: string[] = [];
	const visit = (dir: string): void => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory()) visit(file);
			else if (
				file.endsWith('.ts') &&
				/eslint-disable|eslint-enable|\/\*\s*eslint\s/.test(fs.readFileSync(file, 'utf8'))
			)
				found.push(path.relative(root, file));
		}
	};
	for (const folder of SHIPPED_FOLDERS) visit(path.join(root, folder));
	return found;
}

function main(): number {
	const directives = shippedDirectives();
	if (directives.length > 0) {
		console.error(`Shipped files must not switch lint rules off: ${directives.join(', ')}`);
		return 1;
	}
	const run = spawnSync('npx', ['n8n-node', 'lint'], { cwd: root, encoding: 'utf8' });
	const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
	process.stdout.write(output);
	if (run.status === 0) return 0;
	if (/Strict mode violation/.test(output)) return 1;
	const emailIsSet = authorEmail(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))) !== '';
	const findings = findingsFromStylish(output, root);
	const errors = findings.filter((finding) => finding.severity === 'error');
	if (errors.length > 0 && errors.every((finding) => isMissingAuthorEmail(finding, emailIsSet))) {
		for (const finding of findings) console.log(describeFinding(finding, emailIsSet));
		console.log('n8n-node lint: nothing but the author e-mail, which a maintainer sets before publishing.');
		return findings.length === errors.length ? 0 : 1;
	}
	console.error(`n8n-node lint failed (exit ${run.status}): fix the findings above, or, in a file that never ships,`);
	console.error('run `npm run lint -- --fix` (CONTRIBUTING.md, Lint).');
	return 1;
}

process.exitCode = main();
