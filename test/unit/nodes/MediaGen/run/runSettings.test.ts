// nodes/MediaGen/run/runSettings.ts: the waiting settings, and what they become in an AI tool call.
import { TOOL_TIME_LIMIT_MS } from '../../../../../nodes/MediaGen/run/timeLimit';
import { readRunSettings } from '../../../../../nodes/MediaGen/run/runSettings';
import { nodeContext as context } from '../../../../helpers/node';

test('pause mode is refused in a tool call; a tool call waits 45 s unless a time limit is set', () => {
	const pause = { waitForCompletion: true, waitMode: 'pause', waiting: {} };
	expect(() => readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', pause), 0)).toThrow(
		'Waiting: pause mode cannot run inside an AI tool call',
	);
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGen', pause), 0).mode).toBe('pause');
	const poll = { waitForCompletion: true, waiting: {} };
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', poll), 0).timeoutMs).toBe(TOOL_TIME_LIMIT_MS);
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGen', poll), 0).timeoutMs).toBe(0);
	const set = { ...poll, waiting: { timeoutMinutes: 5 } };
	expect(readRunSettings(context('n8n-nodes-mediagen.mediaGenTool', set), 0).timeoutMs).toBe(300_000);
});
