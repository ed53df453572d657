// Generate in pause mode as the pause tests write it: an image run on the free-tier model, one item's prompt each,
// against a sandbox with short runs and a host that resumes waiting executions.
import type { IDataObject } from 'n8n-workflow';

import type { SandboxConfig } from '../../sandbox/config';
import { IMAGE_MODEL } from './generate';
import { startBackend, type TestBackend } from './sandbox';
import { startWaitingHost, type WaitingHost } from './waitingHost';

/** Generate's parameters in pause mode; `params` override any of it (`model` as a plain id). */
export function pauseParameters(params: IDataObject = {}): IDataObject {
	return {
		resource: 'generation',
		operation: 'generate',
		kind: 'image',
		prompt: '={{ $json.prompt }}',
		waitMode: 'pause',
		...params,
		model: { __rl: true, mode: 'id', value: params.model ?? IMAGE_MODEL },
	};
}

/**
 * The sandbox and waiting host of a pause test file, started before its tests (`ready` gets them) and closed after
 * them; faults are cleared after each test. Runs are short, and a minute lasts 120 ms: a delivery that finds the
 * execution not yet waiting is retried after 1 minute.
 */
export function usePauseStack(
	ready: (backend: TestBackend, host: WaitingHost) => void,
	config: Partial<SandboxConfig> = {},
): void {
	let stack: [TestBackend, WaitingHost] | undefined;
	beforeAll(async () => {
		const durations = { pendingMs: 50, image: 300, video: 600, music: 300 };
		stack = [await startBackend({ timeScale: 0.002, durations, ...config }), await startWaitingHost()];
		ready(...stack);
	});
	afterEach(() => stack?.[0].sandbox.faults.set([]));
	afterAll(async () => {
		await stack?.[1].close();
		await stack?.[0].sandbox.close();
	});
}
