// Every credit accounted for, in Poll mode (issue 41): the advice in a message charges nothing more when followed
// literally, a stopped batch names every run that may have been charged, the spending cap counts runs whose answer
// was lost, and an item queued behind the cap is never sent after its deadline. Each case runs Generate through
// WorkflowExecute against the sandbox, with faults injected, and checks the sandbox's ledger.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { resumeByTimer, runNode } from '../helpers/engine';
import { generate as generateRun } from '../helpers/generate';
import { pauseParameters } from '../helpers/pauseStep';
import { useBackend, type TestBackend } from '../helpers/sandbox';
import { ownAccount, type OwnAccount } from '../helpers/world';

let backend: TestBackend;
useBackend((b) => (backend = b));

const continueOnFail = { nodeOverrides: { onError: 'continueRegularOutput' as const } };
const prompts = (...list: string[]) => list.map((prompt): INodeExecutionData => ({ json: { prompt } }));
const loseEveryAnswer = () =>
	backend.sandbox.faults.set([{ route: 'POST /generations', rate: 1, kinds: ['drop_after'] }]);

// Each test takes an account of its own (ownAccount): re-sent submissions count against the 20 a minute per identity.

/** Generate as `own`, the prompt from each item. */
const generate = (own: OwnAccount, params: IDataObject, items?: INodeExecutionData[], extra = {}) =>
	generateRun(own.creds, { prompt: '={{ $json.prompt }}', ...params }, items, extra);

/** The request keys `own` sent, in order. */
const keysSent = (own: OwnAccount) =>
	backend.sandbox.engine.log
		.filter((e) => e.method === 'POST' && e.path === '/v1/generations' && e.ownerId === own.id)
		.map((e) => String((e.body as IDataObject).requestKey));

/**
 * What a user types in Request Key after reading the message: the value it names ("set to …"; an expression when
 * it holds {{ }}, which n8n's field then stores with its leading "="), or, in older wording, the key it names.
 */
function requestKeyFrom(text: string): string {
	const named = /Request Key set to (the expression )?"([^"]*)"/.exec(text);
	if (named) return named[1] ? `=${named[2]}` : named[2];
	const old = /request key is (\S+?)\.(\s|$)/.exec(text);
	if (!old) throw new Error(`no request key advice in: ${text}`);
	return old[1];
}

describe('1. the advice to run again with a Request Key charges nothing more', () => {
	test.each([
		['default keys', {}],
		['a typed key shared by the items', { additionalFields: { requestKey: 'shared-order-7' } }],
	])(
		'a 2-item batch whose answers were lost (%s): followed literally, each item gets its paid run',
		async (_, params) => {
			const own = ownAccount(backend.sandbox);
			const items = prompts('a red kite', 'a blue kite');
			loseEveryAnswer();
			const first = await generate(own, { ...params, waiting: { timeoutMinutes: 0.05 } }, items);
			backend.sandbox.faults.set([]);
			expect(first.error?.message).toMatch(/the run may have started and been charged/);
			const made = own.runs();
			expect(made).toHaveLength(2);
			expect(own.charges()).toBe(10);
			const advice = String(first.error?.description);
			const requestKey = requestKeyFrom(advice);
			const again = await generate(own, { ...params, additionalFields: { requestKey } }, items);
			expect(again.error).toBeUndefined();
			expect(again.items.map((i) => i.json.prompt)).toEqual(['a red kite', 'a blue kite']);
			expect(again.items.map((i) => i.json.id)).toEqual(made.map((r) => r.id));
			expect(own.runs()).toHaveLength(2);
			expect(own.charges()).toBe(10);
		},
	);

	test('a single-item batch: the literal key returns its run', async () => {
		const own = ownAccount(backend.sandbox);
		loseEveryAnswer();
		const first = await generate(own, { waiting: { timeoutMinutes: 0.05 } }, prompts('a lone kite'));
		backend.sandbox.faults.set([]);
		const [made] = own.runs();
		const advice = String(first.error?.description);
		expect(advice).toContain(`Request Key set to "${String(first.error?.context?.requestKey)}"`);
		const again = await generate(
			own,
			{ additionalFields: { requestKey: requestKeyFrom(advice) } },
			prompts('a lone kite'),
		);
		expect(again.items[0].json.id).toBe(made.id);
		expect(own.charges()).toBe(5);
	});

	test('Continue On Fail, a bad item beside a shared typed key: the advice holds once that item is fixed', async () => {
		const own = ownAccount(backend.sandbox);
		loseEveryAnswer();
		const fields = { additionalFields: { requestKey: 'cof-order-9' }, waiting: { timeoutMinutes: 0.05 } };
		const first = await generate(own, fields, prompts('a green kite', ''), continueOnFail);
		backend.sandbox.faults.set([]);
		expect(first.items[1].json.error).toMatch(/Prompt is empty/);
		const [made] = own.runs();
		expect(own.charges()).toBe(5);
		const requestKey = requestKeyFrom(String(first.items[0].json.description));
		// The user fixes item 2 and follows the advice for item 1.
		const again = await generate(own, { additionalFields: { requestKey } }, prompts('a green kite', 'a grey kite'));
		expect(again.error).toBeUndefined();
		expect(again.items[0].json.id).toBe(made.id);
		expect(own.runs()).toHaveLength(2);
		expect(own.charges()).toBe(10);
	});
});

describe('1. in pause mode too', () => {
	test("n8n's timer ends a 2-item pause: the advice in its items, followed in Poll mode, charges nothing more", async () => {
		const own = ownAccount(backend.sandbox);
		const items = prompts('a paused kite', 'another paused kite');
		const paused = await runNode({
			parameters: pauseParameters({ waiting: { timeoutMinutes: 0.5 / 60 } }),
			items,
			credentials: own.creds,
			// Nothing listens there: no delivery ever ends the wait.
			webhookWaitingBaseUrl: 'http://127.0.0.1:9/webhook-waiting',
		});
		expect(paused.run.status).toBe('waiting');
		const ended = await resumeByTimer(paused, own.creds);
		const made = own.runs();
		expect(made).toHaveLength(2);
		expect(own.charges()).toBe(10);
		const description = String(ended.items[0].json.description);
		// The older wording named "the requestKey here": the item's own key.
		const requestKey = /Request Key set to (the expression )?"/.test(description)
			? requestKeyFrom(description)
			: String(ended.items[0].json.requestKey);
		const again = await generate(own, { additionalFields: { requestKey } }, items);
		expect(again.error).toBeUndefined();
		expect(again.items.map((i) => i.json.id)).toEqual(made.map((r) => r.id));
		expect(own.charges()).toBe(10);
	});
});

describe('2. a stopped batch names every run that may have been charged', () => {
	test('two items whose answers were lost: the error names both request keys, in its text and its context', async () => {
		const own = ownAccount(backend.sandbox);
		loseEveryAnswer();
		const r = await generate(own, { waiting: { timeoutMinutes: 0.05 } }, prompts('an owl', 'a hawk'));
		backend.sandbox.faults.set([]);
		expect(own.charges()).toBe(10);
		const keys = [...new Set(keysSent(own))];
		expect(keys).toHaveLength(2);
		for (const key of keys) expect(`${r.error?.message} ${r.error?.description}`).toContain(key);
		const named = [
			r.error?.context?.requestKey,
			...((r.error?.context?.paidRuns as IDataObject[]) ?? []).map((p) => p.requestKey),
		];
		expect(new Set(named)).toEqual(new Set(keys));
		expect(r.error?.description).toMatch(/may have been charged: item 2, request key n8n-/);
	});
});

describe('5. a passing failure after a lost answer', () => {
	test('lost, then 500 and 503: the key is sent again until its run comes back, charged once, with its file', async () => {
		const own = ownAccount(backend.sandbox);
		backend.sandbox.faults.set([{ route: 'POST /generations', script: ['drop_after', '500', '503'] }]);
		const r = await generate(own, {}, prompts('a heron at dawn'));
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.status).toBe('SUCCEEDED');
		expect(r.items[0].binary?.data.mimeType).toBe('image/png');
		expect(own.runs()).toHaveLength(1);
		expect(r.items[0].json.id).toBe(own.runs()[0].id);
		expect(new Set(keysSent(own)).size).toBe(1);
		expect(own.charges()).toBe(5);
	});
});

describe('3. the spending cap counts a run whose answer was lost', () => {
	test('cap 50, three 25-credit images, every answer lost: at most 50 charged, the third refused', async () => {
		const own = ownAccount(backend.sandbox, { concurrency: 1 });
		loseEveryAnswer();
		const r = await generate(
			own,
			{ model: 'lumora-image-2', additionalFields: { maxCredits: 50 }, waiting: { timeoutMinutes: 0.05 } },
			prompts('one', 'two', 'three'),
			continueOnFail,
		);
		backend.sandbox.faults.set([]);
		expect(own.charges()).toBeLessThanOrEqual(50);
		expect(own.charges()).toBe(50);
		expect(r.items[2].json.error).toMatch(/Max Credits per Execution \(50\) reached/);
		expect(r.items[2].json.description).toMatch(/nothing was charged for it/);
	});

	test('an item queued behind the cap is not sent after its own deadline', async () => {
		const own = ownAccount(backend.sandbox);
		loseEveryAnswer();
		// Item 1 holds the cap's turn for 6 s of lost answers; items 2 and 3 have 3 s.
		const items = [
			{ json: { prompt: 'first', limit: 0.1 } },
			{ json: { prompt: 'second', limit: 0.05 } },
			{ json: { prompt: 'third', limit: 0.05 } },
		];
		const r = await generate(
			own,
			{ additionalFields: { maxCredits: 1000 }, waiting: { timeoutMinutes: '={{ $json.limit }}' } },
			items,
			continueOnFail,
		);
		backend.sandbox.faults.set([]);
		expect(own.runs().map((x) => x.prompt)).toEqual(['first']);
		expect(own.charges()).toBe(5);
		for (const item of r.items.slice(1)) {
			expect(item.json.error).toMatch(/not submitted within its time limit/i);
			expect(item.json.description).toMatch(/nothing was charged/i);
		}
	});
});

describe('uploads: the spec counts MB as a million bytes', () => {
	test('a 10.3 MB image is refused before anything is sent, naming the file and the limit', async () => {
		const own = ownAccount(backend.sandbox);
		const bytes = Buffer.alloc(10_300_000);
		bytes.write('\x89PNG\r\n\x1a\n', 'binary');
		const item: INodeExecutionData = {
			json: { prompt: 'edit this' },
			binary: { data: { data: bytes.toString('base64'), mimeType: 'image/png', fileName: 'holiday.png' } },
		};
		const uploads = backend.requests('POST /v1/uploads').length;
		const r = await generate(own, { model: 'lumora-image-2', referenceImageProperties: 'data' }, [item]);
		expect(r.error?.message).toMatch(/the file "holiday\.png" in "data" is 10\.3 MB .*at most 10 MB/);
		expect(r.error?.description).toMatch(/Nothing was submitted and nothing was charged/);
		expect(backend.requests('POST /v1/uploads').length).toBe(uploads);
		expect(keysSent(own)).toEqual([]);
		expect(own.charges() === 0).toBe(true);
	});
});
