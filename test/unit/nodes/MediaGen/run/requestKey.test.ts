// nodes/MediaGen/run/requestKey.ts: the request keys of a batch's items and of a retry.
import { retryKey, uniquePerItem } from '../../../../../nodes/MediaGen/run/requestKey';

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
