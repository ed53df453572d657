/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 5. Catalogue cache: filling the model dropdown (n8n-core's LoadOptionsContext) the first and
// the second time, and how many GET /models requests each needed.
import { searchModels } from '../nodes/MediaGen/methods';
import { loadOptionsContext } from '../test/helpers/engine';
import { startBackend } from '../test/helpers/sandbox';

async function main(): Promise<void> {
	// A fresh sandbox has its own address, so nothing of it is cached yet (caches are per Base URL).
	const backend = await startBackend();
	const ctx = loadOptionsContext(
		{ authentication: 'apiKey', resource: 'generation', operation: 'generate', kind: 'image' },
		backend.apiCredentials,
	);
	const reads = () => backend.requests('GET /v1/models').length;
	let t = performance.now();
	await searchModels.call(ctx);
	const first = performance.now() - t;
	const firstReads = reads();
	t = performance.now();
	await searchModels.call(ctx);
	const second = performance.now() - t;
	const secondReads = reads() - firstReads;
	console.log(
		`catalogue: model dropdown | first ${first.toFixed(2)} ms (${firstReads} GET /models), ` +
			`second ${second.toFixed(2)} ms (${secondReads} GET /models; target 0)`,
	);
	await backend.sandbox.close();
}

void main().then(() => process.exit(0));
