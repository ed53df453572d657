// nodes/shared/mediaTypes.ts: one name for each media type.
import { canonicalMediaType } from '../../../../nodes/shared/mediaTypes';

describe('media types', () => {
	test('aliases are one type', () => {
		expect(canonicalMediaType('image/jpg')).toBe('image/jpeg');
		expect(canonicalMediaType('audio/x-wav; charset=binary')).toBe('audio/wav');
		expect(canonicalMediaType('text/plain')).toBeUndefined();
	});
});
