// nodes/MediaGen/run/runErrors.ts: the words of a failed or cancelled run, and its error item.
import { errorItem, failedRunError } from '../../../../../nodes/MediaGen/run/runErrors';
import { testNode } from '../../../../helpers/node';
import { runRecord as run } from '../../../../helpers/runRecord';

const ctx = { getNode: () => testNode() } as never;

describe('failed and cancelled runs', () => {
	test('a failed run names its refund', () => {
		const error = failedRunError(ctx, run({ status: 'FAILED', error: 'upstream', refunded: 5 }), 0, 'key-1');
		expect(error.message).toBe('Run gen_1 failed: upstream');
		expect(error.description).toMatch(/^5 credits were refunded automatically/);
		expect(errorItem(error, 0).json).toMatchObject({
			runId: 'gen_1',
			requestKey: 'key-1',
			status: 'FAILED',
			refunded: 5,
		});
	});

	test('a cancelled run claims no refund', () => {
		const error = failedRunError(ctx, run({ status: 'CANCELED' }), 0);
		expect(error.message).toMatch(/was cancelled/);
		expect(error.description).not.toMatch(/refunded/);
		expect(errorItem(error, 0).json.refunded).toBeUndefined();
	});
});
