/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npx n8n-node lint` runs ESLint with n8n's default config on the whole repo, so the node rules (no node:fs,
// no process, no setTimeout, no console...) also reach the emulator, tests, scripts and benchmarks, which never
// ship. This adds NOT_SHIPPED_HEADER to each such file the node rules flag; `npm run lint`'s repo step ignores
// inline directives (--no-inline-config) and lints those files with its own rules. Run: npm run lint -- --fix
import * as fs from 'fs';
import * as path from 'path';

import { ESLint } from 'eslint';

// Word for word as every marked file has it (it predates `lint:repo` becoming `npm run lint`'s repo step); a new
// wording would need those files, test/ included, rewritten with it.
export const NOT_SHIPPED_HEADER =
	"/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */";
const NOT_SHIPPED_FOLDERS = ['sandbox', 'test', 'scripts', 'bench'];

const root = path.resolve(__dirname, '../..');

async function main(): Promise<void> {
	const eslint = new ESLint({ cwd: root });
	const results = await eslint.lintFiles(NOT_SHIPPED_FOLDERS.map((folder) => `${folder}/**/*.ts`));
	let marked = 0;
	for (const result of results) {
		if (result.errorCount === 0) continue;
		const text = fs.readFileSync(result.filePath, 'utf8');
		if (text.startsWith(NOT_SHIPPED_HEADER)) continue;
		fs.writeFileSync(result.filePath, `${NOT_SHIPPED_HEADER}\n${text}`);
		console.log(`marked ${path.relative(root, result.filePath)}`);
		marked++;
	}
	console.log(`${marked} file(s) marked as not shipped`);
}

void main();
