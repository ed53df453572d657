// nodes/MediaGen/files/upload.ts: the media type of a binary property about to be uploaded.
import { mediaTypeOf } from '../../../../../nodes/MediaGen/files/upload';

describe('media types of uploads', () => {
	test('aliases are one type; a generic type gives way to the file name', () => {
		expect(mediaTypeOf({ data: '', mimeType: 'image/jpg' })).toBe('image/jpeg');
		expect(mediaTypeOf({ data: '', mimeType: 'application/octet-stream', fileName: 'a.M4A' })).toBe('audio/mp4');
	});
});
