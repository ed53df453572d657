/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run lint -- imports`: the import rules of the shipped code (scripts/importGraph.ts says them, with the
// allowed direction between folders, FOLDER_ORDER). Reads every .ts under nodes/ and credentials/, prints each
// break of the rules (file cycles, folder cycles, arrows up the order, nodes/ importing credentials/) and
// fails on any. `--graph` also prints the arrows between folders.
import { readdirSync, readFileSync, statSync } from 'fs';
import * as path from 'path';

import { fileEdges, folderEdges, importProblems, relativeImportsOf, type SourceFile } from './importGraph';

const root = path.resolve(__dirname, '..');

function tsFiles(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(path.join(root, dir))) {
		const rel = `${dir}/${name}`;
		if (statSync(path.join(root, rel)).isDirectory()) out.push(...tsFiles(rel));
		else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
	}
	return out;
}

function main(): void {
	const files: SourceFile[] = ['nodes', 'credentials'].flatMap(tsFiles).map((file) => {
		const source = readFileSync(path.join(root, file), 'utf8');
		return { file, imports: relativeImportsOf(source) };
	});
	if (process.argv.includes('--graph')) {
		for (const [from, targets] of [...folderEdges(fileEdges(files))].sort()) {
			console.log(`${from} → ${[...targets.keys()].sort().join(', ')}`);
		}
	}
	const problems = importProblems(files);
	for (const p of problems) console.error(p);
	console.log(
		problems.length
			? `imports: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${files.length} files`
			: `imports: ${files.length} files, no cycle, every folder arrow points down FOLDER_ORDER, ` +
					'nothing in nodes/ imports credentials/',
	);
	if (problems.length) process.exitCode = 1;
}

main();
