/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What n8n's editor would flag on a workflow's nodes in a running n8n: unknown types or versions, and parameter
// issues, computed with the two helpers the editor uses, from the n8n-workflow of that n8n version.
import path from 'node:path';

import { rest, type N8nInstance } from '../../../scripts/realN8n';

export interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
}

export async function problemsOf(n8n: N8nInstance, cookie: string, nodes: WorkflowNode[]): Promise<string[]> {
	const types = await rest<Array<{ name: string; version: number | number[]; properties: unknown[] }>>(
		n8n,
		cookie,
		'/types/nodes.json',
	);
	const { NodeHelpers } = (await import(path.join(n8n.cache, 'node_modules/n8n-workflow'))) as {
		NodeHelpers: {
			getNodeParameters: (...args: unknown[]) => Record<string, unknown> | null;
			getNodeParametersIssues: (...args: unknown[]) => unknown;
		};
	};
	const problems: string[] = [];
	for (const node of nodes) {
		const description = types.find(
			(t) =>
				t.name === node.type &&
				(Array.isArray(t.version) ? t.version.includes(node.typeVersion) : t.version === node.typeVersion),
		);
		if (!description) {
			problems.push(`${node.name}: n8n knows no ${node.type} version ${node.typeVersion}`);
			continue;
		}
		const { properties } = description;
		const parameters = NodeHelpers.getNodeParameters(properties, node.parameters, true, false, node, description);
		const issues = NodeHelpers.getNodeParametersIssues(properties, { ...node, parameters }, description);
		if (issues) problems.push(`${node.name}: ${JSON.stringify(issues)}`);
	}
	return problems;
}
