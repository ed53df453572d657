// nodes/MediaGen/run/toolCall.ts: how the node knows it runs as an AI tool.
import { isToolCall } from '../../../../../nodes/MediaGen/run/toolCall';
import { nodeContext as context } from '../../../../helpers/node';

test('the tool variant is told by the type name n8n derives (…Tool), as n8n-workflow does for @tool', () => {
	expect(isToolCall(context('n8n-nodes-mediagen.mediaGenTool'))).toBe(true);
	expect(isToolCall(context('n8n-nodes-mediagen.mediaGen'))).toBe(false);
});
