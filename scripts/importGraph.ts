/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The import rules of the shipped code, as pure functions over a list of files and their relative imports
// (scripts/checkImports.ts reads the files; test/unit/scripts/importGraph.test.ts tests these). Three rules:
//  1. no file-level import cycle;
//  2. no folder-level cycle, and every arrow between folders points down FOLDER_ORDER (below);
//  3. nothing under nodes/ imports from credentials/ (credentials may import nodes/shared).
// A folder is nodes/MediaGen/<stage> (actions with its resource subfolders is one folder), the files at the top
// of nodes/MediaGen, nodes/MediaGenTrigger, nodes/shared, nodes/shared/transport, or credentials.
import * as path from 'path';

/**
 * The allowed direction, top to bottom: a file may import from its own folder or from a folder further down,
 * never from one above. The node files route to the operations; operations use the batch path, which hands
 * over to pause mode; both use the stages of one run; every folder may use the code both nodes share, and
 * that uses the transport. The credentials sit beside the nodes and use only the shared shape checks.
 */
export const FOLDER_ORDER: readonly string[] = [
	'nodes/MediaGen',
	'nodes/MediaGenTrigger',
	'credentials',
	'nodes/MediaGen/actions',
	'nodes/MediaGen/methods',
	'nodes/MediaGen/tool',
	'nodes/MediaGen/batch',
	'nodes/MediaGen/pause',
	'nodes/MediaGen/run',
	'nodes/MediaGen/files',
	'nodes/MediaGen/catalogue',
	'nodes/shared',
	'nodes/shared/transport',
];

/** A source file (path relative to the repo root, with / separators) and the relative specifiers it imports. */
export interface SourceFile {
	file: string;
	imports: string[];
}

/** The relative specifiers of `import … from`, `export … from`, `import '…'` and `import('…')`. */
export function relativeImportsOf(source: string): string[] {
	const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
	const found: string[] = [];
	const patterns = [
		/(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*['"](\.[^'"]*)['"]/g,
		/(?:^|[\s;])import\s*['"](\.[^'"]*)['"]/g,
		/\b(?:import|require)\(\s*['"](\.[^'"]*)['"]\s*\)/g,
	];
	for (const pattern of patterns) for (const m of withoutComments.matchAll(pattern)) found.push(m[1]);
	return found;
}

/** The file a relative specifier names, among the known files (`x` → `x.ts` or `x/index.ts`). */
export function resolveImport(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
	const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
	return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => known.has(candidate));
}

/** The folder a file belongs to, as the rules above count folders; undefined outside nodes/ and credentials/. */
export function folderOf(file: string): string | undefined {
	const parts = file.split('/');
	if (parts[0] === 'credentials') return 'credentials';
	if (parts[0] !== 'nodes') return undefined;
	if (parts[1] === 'shared')
		return parts[2] === 'transport' && parts.length > 3 ? 'nodes/shared/transport' : 'nodes/shared';
	if (parts[1] === 'MediaGen') return parts.length > 3 ? `nodes/MediaGen/${parts[2]}` : 'nodes/MediaGen';
	return `nodes/${parts[1]}`;
}

export type Edges = Map<string, Set<string>>;

/** File → files it imports (only imports that resolve to a known file). */
export function fileEdges(files: SourceFile[]): Edges {
	const known = new Set(files.map((f) => f.file));
	const edges: Edges = new Map();
	for (const { file, imports } of files) {
		const targets = new Set<string>();
		for (const specifier of imports) {
			const target = resolveImport(file, specifier, known);
			if (target && target !== file) targets.add(target);
		}
		edges.set(file, targets);
	}
	return edges;
}

/** Folder → folders it imports from, with one file-level import behind each arrow (to name in a report). */
export function folderEdges(edges: Edges): Map<string, Map<string, string>> {
	const out = new Map<string, Map<string, string>>();
	for (const [from, targets] of edges) {
		const a = folderOf(from);
		if (!a) continue;
		for (const to of targets) {
			const b = folderOf(to);
			if (!b || a === b) continue;
			if (!out.has(a)) out.set(a, new Map());
			if (!out.get(a)!.has(b)) out.get(a)!.set(b, `${from} → ${to}`);
		}
	}
	return out;
}

/**
 * The cycles of a graph, one per strongly connected component with more than one node (Tarjan), each listed
 * from its smallest member, members sorted: enough to name what is tied together.
 */
export function cyclesOf(graph: Map<string, Iterable<string>>): string[][] {
	let index = 0;
	const indexes = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const components: string[][] = [];
	const nodes = new Set<string>(graph.keys());
	for (const targets of graph.values()) for (const t of targets) nodes.add(t);
	const visit = (v: string) => {
		indexes.set(v, index);
		low.set(v, index++);
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!indexes.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexes.get(w)!));
		}
		if (low.get(v) === indexes.get(v)) {
			const component: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				component.push(w);
			} while (w !== v);
			if (component.length > 1) components.push(component.sort());
		}
	};
	for (const v of [...nodes].sort()) if (!indexes.has(v)) visit(v);
	return components.sort((a, b) => a[0].localeCompare(b[0]));
}

/** Every break of the three rules, one line each; empty when the code keeps them. */
export function importProblems(files: SourceFile[], order: readonly string[] = FOLDER_ORDER): string[] {
	const edges = fileEdges(files);
	const problems: string[] = [];
	for (const cycle of cyclesOf(edges)) problems.push(`file cycle: ${cycle.join(' ↔ ')}`);
	const folders = folderEdges(edges);
	const folderGraph = new Map([...folders].map(([a, targets]) => [a, [...targets.keys()]]));
	for (const cycle of cyclesOf(folderGraph)) problems.push(`folder cycle: ${cycle.join(' ↔ ')}`);
	for (const [from, targets] of folders) {
		for (const [to, example] of targets) {
			if (from.startsWith('nodes/') && to === 'credentials') {
				problems.push(`nodes/ imports credentials/: ${example}`);
				continue;
			}
			const [a, b] = [order.indexOf(from), order.indexOf(to)];
			if (a < 0 || b < 0) problems.push(`folder not in FOLDER_ORDER: ${a < 0 ? from : to} (${example})`);
			else if (a > b) problems.push(`arrow up FOLDER_ORDER: ${from} → ${to} (${example})`);
		}
	}
	return problems;
}
