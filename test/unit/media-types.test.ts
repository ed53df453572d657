// Media types as nodes/shared/mediaTypes.ts and files/upload.ts read them, and where downloads.ts puts covers.
import { mediaTypeOf } from '../../nodes/MediaGen/files/upload';
import { coverPrefix } from '../../nodes/shared/downloads';
import { canonicalMediaType } from '../../nodes/shared/mediaTypes';

describe('media types and covers', () => {
	test('aliases are one type', () => {
		expect(canonicalMediaType('image/jpg')).toBe('image/jpeg');
		expect(canonicalMediaType('audio/x-wav; charset=binary')).toBe('audio/wav');
		expect(canonicalMediaType('text/plain')).toBeUndefined();
		expect(mediaTypeOf({ data: '', mimeType: 'image/jpg' })).toBe('image/jpeg');
		expect(mediaTypeOf({ data: '', mimeType: 'application/octet-stream', fileName: 'a.M4A' })).toBe('audio/mp4');
	});

	test('covers move aside only when the files take their names', () => {
		expect(coverPrefix('data', 2)).toBe('cover');
		expect(coverPrefix('cover', 2)).toBe('cover_cover');
		expect(coverPrefix('cover', 1)).toBe('cover_cover');
	});
});
