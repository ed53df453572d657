/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// scripts/importGraph.ts: the import rules of the shipped code (npm run lint:imports), on made-up file lists.
import { existsSync } from 'node:fs';
import path from 'node:path';

import {
	cyclesOf,
	folderOf,
	FOLDER_ORDER,
	importProblems,
	relativeImportsOf,
	resolveImport,
} from '../../../scripts/importGraph';

describe('reading imports', () => {
	test('relative specifiers of imports, re-exports, side-effect imports and dynamic imports; none from packages', () => {
		const source = [
			"import type { A } from './a';",
			"import { B,\n\tC } from '../b';",
			"export { D } from './d';",
			"export * from './e';",
			"import './f';",
			"const g = await import('./g');",
			"import { NodeOperationError } from 'n8n-workflow';",
			"import { createHash } from 'crypto';",
			"// import { old } from './commented';",
			"/* import { older } from './blockCommented'; */",
		].join('\n');
		expect(relativeImportsOf(source).sort()).toEqual(['../b', './a', './d', './e', './f', './g']);
	});

	test('a specifier names a file or a folder index among the known files', () => {
		const known = new Set(['nodes/shared/transport/index.ts', 'nodes/shared/records.ts']);
		expect(resolveImport('nodes/MediaGen/run/x.ts', '../../shared/transport', known)).toBe(
			'nodes/shared/transport/index.ts',
		);
		expect(resolveImport('nodes/MediaGen/run/x.ts', '../../shared/records', known)).toBe('nodes/shared/records.ts');
		expect(resolveImport('nodes/MediaGen/run/x.ts', './missing', known)).toBeUndefined();
	});

	test('folders: a stage of nodes/MediaGen (actions with its resources is one), the nodes, shared, transport', () => {
		expect(folderOf('nodes/MediaGen/MediaGen.node.ts')).toBe('nodes/MediaGen');
		expect(folderOf('nodes/MediaGen/actions/router.ts')).toBe('nodes/MediaGen/actions');
		expect(folderOf('nodes/MediaGen/actions/generation/generate.operation.ts')).toBe('nodes/MediaGen/actions');
		expect(folderOf('nodes/MediaGenTrigger/delivery.ts')).toBe('nodes/MediaGenTrigger');
		expect(folderOf('nodes/shared/records.ts')).toBe('nodes/shared');
		expect(folderOf('nodes/shared/transport/request.ts')).toBe('nodes/shared/transport');
		expect(folderOf('credentials/common.ts')).toBe('credentials');
		expect(folderOf('sandbox/server.ts')).toBeUndefined();
		for (const folder of ['nodes/MediaGen/run', 'nodes/MediaGen/pause', 'nodes/MediaGen/batch', 'credentials'])
			expect(FOLDER_ORDER).toContain(folder);
	});

	test('FOLDER_ORDER names only folders that exist (a folder removed leaves the order too)', () => {
		const root = path.resolve(__dirname, '../../..');
		expect(FOLDER_ORDER.filter((folder) => !existsSync(path.join(root, folder)))).toEqual([]);
	});
});

describe('the rules', () => {
	test('cycles are found whole, whatever their length; a graph without one has none', () => {
		const graph = new Map([
			['a', ['b']],
			['b', ['c']],
			['c', ['a']],
			['d', ['a']],
		]);
		expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
		expect(cyclesOf(new Map([['a', ['b']]]))).toEqual([]);
	});

	test('code that keeps the rules has no problem', () => {
		expect(
			importProblems([
				{ file: 'nodes/MediaGen/batch/runBatch.ts', imports: ['../pause/pauseRuns', '../run/submission'] },
				{ file: 'nodes/MediaGen/pause/pauseRuns.ts', imports: ['../run/submission', '../../shared/signingSecret'] },
				{ file: 'nodes/MediaGen/run/submission.ts', imports: ['./requestKey', '../../shared/transport'] },
				{ file: 'nodes/MediaGen/run/requestKey.ts', imports: [] },
				{ file: 'nodes/shared/signingSecret.ts', imports: [] },
				{ file: 'nodes/shared/transport/index.ts', imports: [] },
				{ file: 'credentials/common.ts', imports: ['../nodes/shared/transport'] },
			]),
		).toEqual([]);
	});

	test('a file cycle, a folder cycle and its arrow up the order are each named', () => {
		const problems = importProblems([
			{ file: 'nodes/MediaGen/batch/runBatch.ts', imports: ['../pause/pauseRuns'] },
			{ file: 'nodes/MediaGen/batch/pool.ts', imports: [] },
			{ file: 'nodes/MediaGen/pause/pauseRuns.ts', imports: ['../batch/pool', './pauseState'] },
			{ file: 'nodes/MediaGen/pause/pauseState.ts', imports: ['./pauseRuns'] },
		]);
		expect(problems).toEqual([
			'file cycle: nodes/MediaGen/pause/pauseRuns.ts ↔ nodes/MediaGen/pause/pauseState.ts',
			'folder cycle: nodes/MediaGen/batch ↔ nodes/MediaGen/pause',
			'arrow up FOLDER_ORDER: nodes/MediaGen/pause → nodes/MediaGen/batch ' +
				'(nodes/MediaGen/pause/pauseRuns.ts → nodes/MediaGen/batch/pool.ts)',
		]);
	});

	test('nothing under nodes/ may import credentials/, while the credentials may use nodes/shared', () => {
		expect(
			importProblems([
				{ file: 'nodes/shared/signature.ts', imports: ['../../credentials/shapes'] },
				{ file: 'credentials/shapes.ts', imports: [] },
				{ file: 'credentials/common.ts', imports: ['../nodes/shared/signature'] },
			]),
		).toEqual([
			'folder cycle: credentials ↔ nodes/shared',
			'nodes/ imports credentials/: nodes/shared/signature.ts → credentials/shapes.ts',
		]);
	});

	test('a folder the order does not list is reported, so a new folder gets a place in it', () => {
		expect(
			importProblems([
				{ file: 'nodes/MediaGen/video/clip.ts', imports: ['../run/submission'] },
				{ file: 'nodes/MediaGen/run/submission.ts', imports: [] },
			]),
		).toEqual([
			'folder not in FOLDER_ORDER: nodes/MediaGen/video ' +
				'(nodes/MediaGen/video/clip.ts → nodes/MediaGen/run/submission.ts)',
		]);
	});
});
