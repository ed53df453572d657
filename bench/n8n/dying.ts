/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// `npm run bench -- dying [--items 300]` (issue #54): the queue suite's dying-process cases
// (test/e2e-queue/dying.e2e.ts) under a batch of 300 images instead of CI's 20, with every ledger check of the test:
// a worker killed while the batch runs, the webhook process and main restarted, in pause mode and in Poll, each beside
// the same batch when nothing dies. Needs MEDIAGEN_TARBALL (a packed package), as the queue suite does; prints the
// suite's output, whose figures (the seconds each case took, what was delivered while a process was down)
// bench/RESULTS.md copies.
import { spawnSync } from 'node:child_process';

import { REPO } from '../../scripts/realN8n';

const at = process.argv.indexOf('--items');
const items = at > 0 ? Number(process.argv[at + 1]) : 300;
if (!Number.isInteger(items) || items < 1) throw new Error(`bench:dying: --items wants a whole number, not ${items}`);
const jest = ['jest', '--runInBand', '--config', 'jest.e2e-queue.config.js', 'test/e2e-queue/dying.e2e.ts'];
const run = spawnSync('npx', jest, {
	cwd: REPO,
	stdio: 'inherit',
	env: { ...process.env, MEDIAGEN_DYING_ITEMS: String(items) },
});
process.exitCode = run.status ?? 1;
