// Loaded after ts-node: Node tries require extensions in insertion order, and ts-node appends ".ts"
// last, so "MediaGen.node" would resolve to the codex file MediaGen.node.json. Moving .json and
// .node behind .ts makes the TypeScript source win, as it does under jest.
const Module = require('module');
for (const ext of ['.json', '.node']) {
	const loader = Module._extensions[ext];
	delete Module._extensions[ext];
	Module._extensions[ext] = loader;
}
