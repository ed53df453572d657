// nodes/MediaGen/run/waitForRun.ts: a read every Check Every, timed from when the last read was sent, until the run
// is final or the time limit passes.
import type { IExecuteFunctions } from 'n8n-workflow';

import { waitForRun } from '../../../../../nodes/MediaGen/run/waitForRun';
import type { RunRecord } from '../../../../../nodes/shared/records';
import { credentialsOf } from '../../../../helpers/identity';
import { testNode } from '../../../../helpers/node';
import { runRecord } from '../../../../helpers/runRecord';

/** A context whose reads of the run answer `statuses` in turn (the last one from then on), noting when each was sent. */
function contextReading(statuses: Array<RunRecord['status']>, n: number) {
	const sentAt: number[] = [];
	const ctx = {
		getNode: () => testNode(),
		getNodeParameter: () => 'apiKey',
		getCredentials: credentialsOf('apiKey', 'http://127.0.0.1:1/v1', n),
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async () => {
				sentAt.push(Date.now());
				const status = statuses[Math.min(sentAt.length, statuses.length) - 1];
				return { statusCode: 200, body: { generation: runRecord({ status }) }, headers: {} };
			},
		},
	};
	return { ctx: ctx as unknown as IExecuteFunctions, sentAt };
}

const INTERVAL_MS = 40;

test('one read every interval until the run is final', async () => {
	const { ctx, sentAt } = contextReading(['PROCESSING', 'QUEUED', 'PROCESSING', 'SUCCEEDED'], 1);
	const startedAt = Date.now();
	const run = await waitForRun(ctx, runRecord(), { pollIntervalMs: INTERVAL_MS }, 0, 'key-1');
	expect(run.status).toBe('SUCCEEDED');
	expect(sentAt).toHaveLength(4);
	// Three waits of at least an interval each, timed from when the node sent each read: a lower bound a loaded
	// machine cannot break (one gap between the reads' arrival here may be shorter when the one before arrived late).
	expect(sentAt[3] - startedAt).toBeGreaterThanOrEqual(3 * INTERVAL_MS - 2);
});

test('past the time limit it stops reading and says how to pick the run up later', async () => {
	const { ctx, sentAt } = contextReading(['PROCESSING'], 2);
	const deadline = Date.now() + 5 * INTERVAL_MS;
	await expect(
		waitForRun(ctx, runRecord(), { pollIntervalMs: INTERVAL_MS, deadline }, 0, 'key-2'),
	).rejects.toMatchObject({
		message: expect.stringMatching(/^Run gen_1 did not finish within 180 seconds \(last status PROCESSING\)/),
		description: expect.stringContaining('Use Generation → Wait with run ID gen_1 to pick it up later'),
	});
	expect(sentAt.length).toBeGreaterThanOrEqual(1);
	expect(sentAt.length).toBeLessThanOrEqual(5);
});
