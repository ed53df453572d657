/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/MediaGen/run/requestKey.ts: the request keys of a batch's items and of a retry.
import {
	assignRequestKeys,
	requestKeyAdvice,
	retryKey,
	uniquePerItem,
} from '../../../../../nodes/MediaGen/run/requestKey';

describe('request keys', () => {
	test('a typed key shared by items gets the item number; distinct or default keys stay as they are', () => {
		const keys = uniquePerItem([
			{ itemIndex: 0, key: 'k', typed: true },
			{ itemIndex: 1, key: 'k', typed: true },
			{ itemIndex: 2, key: 'other', typed: true },
			{ itemIndex: 3, key: 'n8n-x-0', typed: false },
		]);
		expect([...keys.values()]).toEqual(['k-1', 'k-2', 'other', 'n8n-x-0']);
	});

	test('keys stay within 120 characters when a suffix is added', () => {
		const long = 'k'.repeat(120);
		expect(
			uniquePerItem([
				{ itemIndex: 0, key: long, typed: true },
				{ itemIndex: 9, key: long, typed: true },
			]).get(9),
		).toHaveLength(120);
		expect(retryKey(long, 3)).toHaveLength(120);
		expect(retryKey(long, 3).endsWith('-r3')).toBe(true);
		expect(retryKey('abc', 1)).toBe('abc');
		expect(retryKey('abc', 2)).toBe('abc-r2');
	});
});

/**
 * Follows an advice as a user does: the value it names typed into Request Key (an expression evaluated per item as
 * n8n does for {{ }}), then the node's own key rules; returns the first key each ready item is sent.
 */
function follow(advice: string, ready: number[], asItIs?: string[]): Map<number, string> {
	const named = /Request Key set to (the expression )?"([^"]*)"/.exec(advice);
	const typedFor = (i: number): string | undefined => {
		if (!named) return asItIs?.[i];
		if (!named[1]) return named[2];
		const value = named[2].replace(/\{\{(.*?)\}\}/g, (_, code: string) => {
			const result = new Function('$itemIndex', `return (${code});`)(i) as unknown;
			return result === null || result === undefined ? '' : String(result);
		});
		return value === '' ? undefined : value;
	};
	const items = ready.map((itemIndex) => {
		const typed = typedFor(itemIndex);
		return { itemIndex, body: { requestKey: typed ?? `default-${itemIndex + 1}` }, typedKey: typed !== undefined };
	});
	assignRequestKeys(ready.length, items);
	return new Map(items.map((p) => [p.itemIndex, String(p.body.requestKey)]));
}

describe('the advice to run a step again with Request Key (issue 41)', () => {
	const reaches = (first: string | undefined, key: string) =>
		first !== undefined && Array.from({ length: 10 }, (_, n) => retryKey(first, n + 1)).includes(key);

	test.each([
		['one item: its key as typed', 1, ['n8n-i-7-node-0-1']],
		['default keys of a batch', 3, ['n8n-i-7-node-0-1', 'n8n-i-7-node-0-2', 'n8n-i-7-node-0-3']],
		['a typed key shared by the batch, one item after a refund', 2, ['order-1-r2', 'order-2']],
		['a typed key left alone when the others were bad', 3, ['order']],
		['keys cut to 120 characters', 12, Array.from({ length: 12 }, (_, i) => `${'k'.repeat(118)}-${i + 1}`.slice(-120))],
		['mixed, with quotes and braces', 2, ["it's {x}", 'n8n-i-7-node-0-2']],
	])('%s: followed literally, every item is sent the key it was sent', (_, inputCount, keys) => {
		const batch = { inputCount, items: keys.map((key, itemIndex) => ({ itemIndex, key })) };
		const advice = requestKeyAdvice(batch);
		const sent = follow(
			advice,
			batch.items.map((k) => k.itemIndex),
		);
		for (const k of batch.items) expect([advice, reaches(sent.get(k.itemIndex), k.key)]).toEqual([advice, true]);
		// However many of the items are ready then: each keeps its key (none is shared, so none is numbered).
		if (inputCount > 1) expect(reaches(follow(advice, [0]).get(0), keys[0])).toBe(true);
	});

	test('the wording: a literal for one item, B-{{ $itemIndex + 1 }} for numbered keys, as it is for per-item keys', () => {
		const one = requestKeyAdvice({ inputCount: 1, items: [{ itemIndex: 0, key: 'k' }] });
		expect(one).toBe('Additional Fields → Request Key set to "k"');
		const numbered = requestKeyAdvice({
			inputCount: 2,
			items: [
				{ itemIndex: 0, key: 'n8n-i-7-node-0-1' },
				{ itemIndex: 1, key: 'n8n-i-7-node-0-2' },
			],
		});
		expect(numbered).toContain('set to the expression "n8n-i-7-node-0-{{ $itemIndex + 1 }}"');
		const ready = [
			{ itemIndex: 0, body: { requestKey: 'order-17' }, typedKey: true },
			{ itemIndex: 1, body: { requestKey: 'order-18' }, typedKey: true },
		];
		const batch = assignRequestKeys(2, ready);
		expect(requestKeyAdvice(batch)).toMatch(/Request Key as it is/);
		expect(follow(requestKeyAdvice(batch), [0, 1], ['order-17', 'order-18'])).toEqual(
			new Map([
				[0, 'order-17'],
				[1, 'order-18'],
			]),
		);
	});
});

test('numbering a shared key never gives an item a key another item has (issue 52, finding 4)', () => {
	const keys = uniquePerItem([
		{ itemIndex: 0, key: 'k', typed: true },
		{ itemIndex: 1, key: 'k', typed: true },
		{ itemIndex: 2, key: 'k-1', typed: true },
		{ itemIndex: 3, key: 'k-1-2', typed: true },
	]);
	expect([...keys.values()]).toEqual(['k-1-3', 'k-2', 'k-1', 'k-1-2']);
	expect(new Set(keys.values()).size).toBe(4);
});
