// The money rules as a property of pause-mode batches (issue 41): 300 generated cases with a fixed seed, each run
// through n8n's real WorkflowExecute against a sandbox of its own and checked against its ledger and run table
// (runCase.ts). A failure prints the seed, the path and the shrunk counterexample; CONTRIBUTING ("Property suite")
// says how to replay one.
import { WARP } from './warpClock';
import { optionsFromEnv, runSuite } from './suite';

const options = optionsFromEnv('pause', 20261128, 8);

test(`${options.runs} pause-mode batches under faults keep every money rule (seed ${options.seed}, clock ×${WARP})`, async () => {
	await runSuite(options);
}, 900_000);
