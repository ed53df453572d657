// Unit tests of pure pieces of a submission and of listing: prompt markers, list query, input files.
import { checkInputFiles } from '../../sandbox/inputFiles';
import { plannedOutcome } from '../../sandbox/markers';
import { parseListQuery } from '../../sandbox/routes/generations';
import type { Upload } from '../../sandbox/types';
import type { GenerationRequest } from '../../sandbox/validate';

describe('plannedOutcome', () => {
	const never = () => false;
	test('[stuck] wins over [fail]; [fail] always fails; plain prompts succeed', () => {
		expect(plannedOutcome('a cat [stuck] [fail]', never)).toBe('stuck');
		expect(plannedOutcome('a cat [fail]', () => true)).toBe('fail');
		expect(plannedOutcome('a cat', never)).toBe('succeed');
	});

	test('[fail-first] fails only when the owner has not run the prompt before', () => {
		expect(plannedOutcome('a cat [fail-first]', () => false)).toBe('fail');
		expect(plannedOutcome('a cat [fail-first]', () => true)).toBe('succeed');
	});
});

describe('parseListQuery', () => {
	test('limit defaults to 20; before is optional', () => {
		expect(parseListQuery(new URLSearchParams(''))).toEqual({ limit: 20, before: undefined, issues: [] });
		const query = new URLSearchParams('limit=100&before=123');
		expect(parseListQuery(query)).toEqual({ limit: 100, before: 123, issues: [] });
	});

	test('every problem is listed', () => {
		expect(parseListQuery(new URLSearchParams('limit=0&before=1.5')).issues).toEqual([
			'limit must be a whole number from 1 to 100',
			'before must be a createdAt value (whole number)',
		]);
		expect(parseListQuery(new URLSearchParams('limit=abc')).issues).toHaveLength(1);
	});
});

describe('checkInputFiles', () => {
	const root = 'http://127.0.0.1:4010';
	const upload = (mime: string, bytes = 16_000): Upload => ({
		id: 'up_1',
		ownerId: 'acct_1',
		mime,
		bytes,
		token: 'up_1',
		expiresAt: 0,
		received: true,
		hasModerationMarker: false,
	});
	const request = (extra: Partial<GenerationRequest>): GenerationRequest => ({
		kind: 'video',
		model: 'm',
		prompt: 'p',
		options: { resolution: '720p' },
		...extra,
	});

	test('images: our uploads must be images, other URLs must be https; the end frame counts after them', () => {
		const files: Record<string, Upload> = { [`${root}/files/uploads/a.png`]: upload('image/png') };
		const check = checkInputFiles(
			request({
				imageUrls: [`${root}/files/uploads/a.png`, 'https://example.com/b.png', 'http://example.com/c.png'],
				endImageUrl: `${root}/files/uploads/missing.png`,
			}),
			root,
			(url) => files[url],
		);
		expect(check.issues).toEqual([
			'imageUrls[2] must be an upload URL or a public https image',
			'imageUrls[3] is not an uploaded image (PNG, JPEG or WebP)',
		]);
		expect(check.audioSeconds).toBeUndefined();
	});

	test('audio: an uploaded audio file, whose length is measured', () => {
		const url = `${root}/files/uploads/v.mp3`;
		expect(checkInputFiles(request({ audioUrl: url }), root, () => upload('audio/mpeg', 80_000))).toEqual({
			issues: [],
			audioSeconds: 5,
		});
		expect(checkInputFiles(request({ audioUrl: url }), root, () => upload('image/png')).issues).toEqual([
			'audioUrl must be an audio file uploaded through POST /uploads first',
		]);
	});
});
