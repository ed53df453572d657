// Starts the sandbox for a test file and gives ready credentials for the engine harness.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { SandboxConfig } from '../../sandbox/config';
import type { Account } from '../../sandbox/types';
import { spentBy } from './ledger';
import { until } from './until';

export interface TestBackend {
	sandbox: Sandbox;
	account: Account;
	apiCredentials: { mediaGenApi: { baseUrl: string; apiKey: string } };
	anonCredentials(anonId?: string): { mediaGenAnonymousApi: { baseUrl: string; secretAnonymousId: string } };
	/** API requests the sandbox saw, optionally filtered by "METHOD /path-prefix". */
	requests(filter?: string): Array<{ method: string; path: string; status: number; body?: unknown }>;
	charges(ownerId?: string): number;
}

/** Ports this test file's sandboxes have had (jest gives each test file its own copy of the node's modules). */
const portsUsed = new Set<string>();

/**
 * Each sandbox gets a port this test file has not used before, so the node's catalogue cache and rate
 * budgets (kept per Base URL and identity) start empty for it, with no reset hook in the shipped code.
 */
async function startFreshSandbox(config: Partial<SandboxConfig>): Promise<Sandbox> {
	for (;;) {
		const sandbox = await startSandbox(config);
		if (config.port || !portsUsed.has(sandbox.baseUrl)) {
			portsUsed.add(sandbox.baseUrl);
			return sandbox;
		}
		await sandbox.close();
	}
}

export async function startBackend(
	config: Partial<SandboxConfig> = {},
	account: Partial<Account> = {},
): Promise<TestBackend> {
	const sandbox = await startFreshSandbox(config);
	const acct = sandbox.engine.createAccount({ tier: 'paid', credits: 10_000, concurrency: 3, ...account });
	return {
		sandbox,
		account: acct,
		apiCredentials: { mediaGenApi: { baseUrl: sandbox.baseUrl, apiKey: acct.keys[0] } },
		anonCredentials: (anonId = `anon-test-${Math.random().toString(36).slice(2, 10)}`) => ({
			mediaGenAnonymousApi: { baseUrl: sandbox.baseUrl, secretAnonymousId: anonId },
		}),
		requests: (filter) =>
			sandbox.engine.log
				.filter((e) => {
					if (!filter) return true;
					const [method, prefix] = filter.split(' ');
					return e.method === method && e.path.startsWith(prefix);
				})
				.map((e) => ({ method: e.method, path: e.path, status: e.status, body: e.body })),
		/** Net credits spent by an owner (charges minus refunds). */
		charges: (ownerId = acct.id) => spentBy(sandbox, ownerId),
	};
}

/** Waits until run `id` is over on the sandbox's clock (settled as a read would settle it). */
export async function runEnded(sandbox: Sandbox, id: string): Promise<void> {
	const { engine } = sandbox;
	await until(() => !engine.isActive(engine.settle(engine.runs.get(id)!)), `run ${id} to end`);
}

/**
 * The sandbox of a test file, started before its tests (`ready` gets it), its faults cleared after each test and
 * closed after them all (pause tests: usePauseStack in pauseStep.ts).
 */
export function useBackend(ready: (backend: TestBackend) => void, config: Partial<SandboxConfig> = {}): void {
	let backend: TestBackend | undefined;
	beforeAll(async () => {
		backend = await startBackend(config);
		ready(backend);
	});
	afterEach(() => backend?.sandbox.faults.set([]));
	afterAll(async () => backend?.sandbox.close());
}
