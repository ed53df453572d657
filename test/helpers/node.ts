// The node object n8n hands to code that only names it (errors, contexts built by hand in unit tests).
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

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

/** A context that only names the node (of type `type`) and reads its `parameters`. */
export function nodeContext(type: string, parameters: IDataObject = {}) {
	const node = testNode({ name: 'Generate Media', type, parameters: parameters as INodeParameters });
	return {
		getNode: () => node,
		getNodeParameter: (name: string, _i: number, fallback?: unknown) => parameters[name] ?? fallback,
	} as never;
}
