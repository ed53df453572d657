// nodes/MediaGen/batch/prepareItems.ts: every item checked before anything is sent, with a context in memory.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { failedItem, prepareItems, typedRequest } from '../../../../../nodes/MediaGen/batch/prepareItems';
import type { RunRequest } from '../../../../../nodes/MediaGen/run/runRequest';

const node = {
	id: 'n1',
	name: 'Media Generation',
	type: 'n8n-nodes-mediagen.mediaGen',
	typeVersion: 1,
	position: [0, 0],
};

/** Items with these parameters (a missing one throws, as n8n does for a parameter of another operation). */
function context(items: Array<Record<string, unknown>>, continueOnFail = false): IExecuteFunctions {
	return {
		getNode: () => node,
		getInputData: () => items.map(() => ({ json: {} })),
		continueOnFail: () => continueOnFail,
		getNodeParameter: (name: string, itemIndex: number) => {
			const params = items[itemIndex];
			if (!(name in params)) throw new Error(`no parameter ${name}`);
			return params[name];
		},
	} as unknown as IExecuteFunctions;
}

const prepared = (itemIndex: number) =>
	({ itemIndex, body: { requestKey: `k-${itemIndex}` } }) as unknown as RunRequest;
const refusal = (message: string, description?: string) =>
	new NodeOperationError(node as never, message, description ? { description } : {});

test('what an item asked for, as typed: only the parameters it has, and not empty ones', () => {
	const ctx = context([{ kind: 'image', model: 'studio-image-v1', prompt: '', app: undefined }]);
	expect(typedRequest(ctx, 0)).toEqual({ kind: 'image', model: 'studio-image-v1' });
});

test('all good: every item ready, none bad', async () => {
	const { ready, refused: bad } = await prepareItems(context([{}, {}]), async (i) => prepared(i));
	expect(ready.map((p) => p.itemIndex)).toEqual([0, 1]);
	expect(bad).toEqual([]);
});

test('one bad item of one: its own message and advice, after "nothing was submitted"', async () => {
	const ctx = context([{ prompt: 'a cat' }]);
	const error = await prepareItems(ctx, async () => {
		throw refusal('Prompt is empty.', 'Write one.');
	}).catch((e: NodeOperationError) => e);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect((error as NodeOperationError).message).toBe('Prompt is empty.');
	expect((error as NodeOperationError).description).toBe(
		'Nothing was submitted and nothing was charged: fix this item and run again. Write one.',
	);
});

test('bad items of a batch are named as a person counts them, with the start of their prompt', async () => {
	const long = 'a very long prompt that goes on and on beyond forty characters';
	const ctx = context([{ prompt: 'fine' }, { prompt: long }, { prompt: 'short' }]);
	const error = (await prepareItems(ctx, async (i) => {
		if (i === 0) return prepared(i);
		throw refusal(`problem ${i}`);
	}).catch((e) => e)) as NodeOperationError;
	expect(error.message).toBe(
		`2 of 3 items cannot be sent: item 2 ("${long.slice(0, 40)}…"): problem 1 item 3 ("short"): problem 2`,
	);
	// Said once: the message is what n8n's notification and the panel's title show.
	expect(error.description).toBe('Nothing was submitted and nothing was charged: fix these items and run again.');
});

test('items refused for one reason: the reason said once, with its advice, and the items named', async () => {
	const prompts = ['one', 'two', 'three', 'four'];
	const ctx = context(prompts.map((prompt) => ({ prompt })));
	const error = (await prepareItems(ctx, async () => {
		throw refusal('Model: studio-image-v1 is an image model, and Kind is Music.', 'Pick a music model.');
	}).catch((e) => e)) as NodeOperationError;
	expect(error.message).toBe(
		'4 of 4 items cannot be sent: items 1, 2, 3 and 4: Model: studio-image-v1 is an image model, and Kind is Music.',
	);
	expect(error.description).toBe(
		'Nothing was submitted and nothing was charged: fix these items and run again. Pick a music model.',
	);
	const two = (await prepareItems(context([{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }]), async (i) => {
		if (i === 1) return prepared(i);
		throw refusal('Prompt is too long.', 'Shorten it.');
	}).catch((e) => e)) as NodeOperationError;
	expect(two.message).toBe('2 of 3 items cannot be sent: items 1 ("a") and 3 ("c"): Prompt is too long.');
	expect(two.description).toMatch(/run again\. Shorten it\.$/);
});

test('with Continue On Fail the bad items come back, each as an item with the columns of a run', async () => {
	const ctx = context([{ prompt: 'ok' }, { kind: 'video', prompt: 'no' }], true);
	const { ready, refused: bad } = await prepareItems(ctx, async (i) => {
		if (i === 1) throw refusal('Model: no model selected', 'Pick a video model from the list.');
		return prepared(i);
	});
	expect(ready.map((p) => p.itemIndex)).toEqual([0]);
	expect(bad.map((b) => b.itemIndex)).toEqual([1]);
	const item = failedItem(bad[0].error, 1, typedRequest(ctx, 1));
	expect(item).toEqual({
		json: {
			id: null,
			kind: 'video',
			prompt: 'no',
			error: 'Model: no model selected',
			description: 'Nothing was submitted and nothing was charged. Pick a video model from the list.',
			nothingCharged: true,
			options: null,
		},
		pairedItem: { item: 1 },
	});
});
