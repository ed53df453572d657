// Saved workflows keep running: node parameters saved with version 1 on 2026-11-23 (frozen in
// test/fixtures) run unchanged through WorkflowExecute against the sandbox.
import saved from '../fixtures/saved-v1-parameters.json';
import { runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

test.each(Object.entries(saved.nodes))('%s, as saved, still runs and delivers its files', async (_name, parameters) => {
	const r = await runNode({
		parameters: { ...parameters, waiting: { pollIntervalSeconds: 1 } },
		credentials: backend.apiCredentials,
	});
	expect(r.error).toBeUndefined();
	expect(r.items[0].json.status).toBe('SUCCEEDED');
	expect(r.items[0].binary?.data).toBeDefined();
});
