// nodes/MediaGen/run/submission.ts: how a run returned for a request key is told from a run of another request.
import { mismatchOf } from '../../../../../nodes/MediaGen/run/submission';
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
});
