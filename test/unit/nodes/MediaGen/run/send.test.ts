// nodes/MediaGen/run/send.ts: how a run returned for a request key is told from a run of another request.
import { mismatchOf, sameOptionValue } from '../../../../../nodes/MediaGen/run/send';
import { runRecord as run } from '../../../../helpers/runRecord';

describe('request keys', () => {
	test('a returned run made for another request is told apart', () => {
		const body = { model: 'm', prompt: 'p', options: { resolution: '1K' } };
		expect(mismatchOf(run(), body)).toEqual([]);
		expect(mismatchOf(run({ prompt: 'q' }), body)).toEqual(['prompt']);
		expect(mismatchOf(run({ model: 'n', options: { resolution: '2K' } }), body)).toEqual([
			'model (n)',
			'options (resolution)',
		]);
	});

	test("options are compared by meaning: a look's option returned in another JSON type is the same request", () => {
		const body = { model: 'm', prompt: 'p', options: { resolution: '1K', duration: '5', audio: 'true', fps: 24 } };
		const returned = run({ options: { resolution: '1K', duration: 5, audio: true, fps: '24.0' } as never });
		expect(mismatchOf(returned, body)).toEqual([]);
		expect(mismatchOf(run({ options: { resolution: '1K', duration: 6 } as never }), body)).toEqual([
			'options (duration)',
		]);
		expect(sameOptionValue('5', 5)).toBe(true);
		expect(sameOptionValue('', 0)).toBe(false);
		expect(sameOptionValue('1K', '1k')).toBe(false);
		expect(sameOptionValue({ a: [1] }, { a: [1] })).toBe(true);
	});
});
