// The node object n8n hands to code that only names it (errors, contexts built by hand in unit tests).
import type { INode } from 'n8n-workflow';

export function testNode(overrides: Partial<INode> = {}): INode {
	return {
		id: 'n1',
		name: 'Media Generation',
		type: 'n8n-nodes-mediagen.mediaGen',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		...overrides,
	};
}
