// nodes/MediaGen/files/upload.ts: the media type of a binary property about to be uploaded.
import { mediaTypeOf, SIZE_CAPS, uploadRefusal } from '../../../../../nodes/MediaGen/files/upload';

describe('media types of uploads', () => {
	test('aliases are one type; a generic type gives way to the file name', () => {
		expect(mediaTypeOf({ data: '', mimeType: 'image/jpg' })).toBe('image/jpeg');
		expect(mediaTypeOf({ data: '', mimeType: 'application/octet-stream', fileName: 'a.M4A' })).toBe('audio/mp4');
	});
});

describe('a refused upload says what happened (issue 41)', () => {
	const node = { id: 'n', name: 'Media Generation', type: 't', typeVersion: 1, position: [0, 0] } as never;
	const refused = { statusCode: 403, body: '{"error":"invalid","message":"The upload signature is not valid"}' };

	test('a 403 within the slot time is not called expired', () => {
		const error = uploadRefusal(node, 'Reference Images', refused, undefined, 0);
		expect(error.message).toBe(
			'Reference Images: the upload address refused the file (HTTP 403): The upload signature is not valid',
		);
		expect(error.message).not.toMatch(/expired/);
		expect(error.description).toMatch(/Nothing was charged/);
	});

	test('past the slot time, or when the service says so, it is', () => {
		expect(uploadRefusal(node, 'Photos', refused, 300, 0).message).toMatch(/upload slot expired .* 5 minutes/);
		const said = { statusCode: 403, body: '{"error":"invalid","message":"The upload slot has expired"}' };
		expect(uploadRefusal(node, 'Photos', said, undefined, 0).message).toMatch(/expired/);
	});

	test("size caps are the spec's megabytes", () => {
		expect(SIZE_CAPS.image).toBe(10_000_000);
		expect(SIZE_CAPS.video).toBe(50_000_000);
	});
});
