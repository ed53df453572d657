// Max Credits per Execution counts what this execution spent wherever it runs (issue 28, point 5): the total is
// saved with the execution (node context data), so a pass after a pause that another process resumed, run
// by a process with fresh module memory, still counts the credits the paused batch spent.
import type { IDataObject, INodeType } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { startWaitingHost, type WaitingHost } from '../helpers/waitingHost';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
let elsewhere: WaitingHost;

/** Our node as another n8n process loads it: its own module memory. */
function freshProcess(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { MediaGen } = require('../../nodes/MediaGen/MediaGen.node') as { MediaGen: new () => INodeType };
		node = new MediaGen();
	});
	return node!;
}

beforeAll(async () => {
	backend = await startBackend({ timeScale: 0.002, durations: { pendingMs: 50, image: 300, video: 600, music: 300 } });
	elsewhere = await startWaitingHost({ nodeType: freshProcess() });
});
afterAll(async () => {
	await elsewhere.close();
	await backend.sandbox.close();
});

const prompts = (...p: string[]) => p.map((prompt) => ({ json: { prompt } }));

test('a pass after a pause resumed by another process counts what the paused batch spent', async () => {
	const own = ownAccount(backend.sandbox, { credits: 10_000 });
	const credentials = own.creds;
	const parameters: IDataObject = {
		resource: 'generation',
		operation: 'generate',
		kind: 'image',
		prompt: '={{ $json.prompt }}',
		model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
		additionalFields: { maxCredits: 12 },
	};
	const charged = () => backend.charges(own.id);
	// Pass 1: pause mode, 2 images at 5 credits, resumed by a process that did not pause it.
	const paused = await runNode({
		parameters: { ...parameters, waitMode: 'pause' },
		items: prompts('first a', 'first b'),
		credentials,
		webhookWaitingBaseUrl: elsewhere.baseUrl,
	});
	expect(paused.run.status).toBe('waiting');
	elsewhere.hold(paused, credentials);
	const resumed = await elsewhere.resumed(paused.executionId);
	expect(resumed.items.map((i) => i.json.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
	expect(charged()).toBe(10);
	// Pass 2 of the same execution, in yet another process, from the execution data as n8n saved it.
	const saved = JSON.parse(JSON.stringify(paused.run.data.executionData!.contextData)) as IDataObject;
	const posts = backend.requests('POST /v1/generations').length;
	// A loop's later pass has keys of its own ($runIndex); here the pass is the engine's first, so it is typed.
	const second = await runNode({
		parameters: { ...parameters, additionalFields: { maxCredits: 12, requestKey: 'second pass' } },
		items: prompts('second a'),
		credentials,
		executionId: paused.executionId,
		contextData: saved,
		nodeType: freshProcess(),
	});
	expect(second.error?.message).toBe(
		'Max Credits per Execution is 12: this run would cost 5 credits at the prices known in advance (10 already spent ' +
			'by this step in this execution)',
	);
	expect(second.error?.description).toMatch(/Nothing was submitted and nothing was charged/);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(charged()).toBe(10);
});
