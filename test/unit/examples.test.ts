/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// examples/: saved workflows keep working: every parameter the example workflows (saved with version 1 of the
// nodes) set still exists under the same name, inside the same collection, with an allowed value.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';

const examples = path.join(__dirname, '../../examples');
const types: Record<string, INodeProperties[]> = {
	'n8n-nodes-mediagen.mediaGen': new MediaGen().description.properties,
	// The AI tool variant n8n derives from usableAsTool has the same parameters.
	'n8n-nodes-mediagen.mediaGenTool': new MediaGen().description.properties,
	'n8n-nodes-mediagen.mediaGenTrigger': new MediaGenTrigger().description.properties,
};

function problems(properties: INodeProperties[], parameters: Record<string, unknown>, where: string): string[] {
	const found: string[] = [];
	for (const [name, value] of Object.entries(parameters)) {
		const candidates = properties.filter((p) => p.name === name);
		if (!candidates.length) {
			found.push(`${where}.${name} is no longer a parameter`);
			continue;
		}
		const values = candidates.flatMap((p) =>
			p.type === 'options' ? ((p.options ?? []) as INodePropertyOptions[]) : [],
		);
		const isExpression = typeof value === 'string' && value.startsWith('=');
		if (values.length && !isExpression && !values.some((o) => o.value === value)) {
			found.push(`${where}.${name} = ${JSON.stringify(value)} is no longer an allowed value`);
		}
		const collection = candidates.find((p) => p.type === 'collection');
		if (collection && value && typeof value === 'object') {
			found.push(
				...problems(
					(collection.options ?? []) as INodeProperties[],
					value as Record<string, unknown>,
					`${where}.${name}`,
				),
			);
		}
		const fixed = candidates.find((p) => p.type === 'fixedCollection');
		if (fixed && value && typeof value === 'object') {
			for (const [group, entries] of Object.entries(value as Record<string, unknown>)) {
				const def = ((fixed.options ?? []) as INodePropertyCollection[]).find((o) => o.name === group);
				if (!def) found.push(`${where}.${name}.${group} is no longer a group`);
				else
					for (const entry of [entries].flat())
						found.push(...problems(def.values, entry as Record<string, unknown>, `${where}.${name}.${group}`));
			}
		}
	}
	return found;
}

test.each(readdirSync(examples).filter((f) => f.endsWith('.json')))(
	'%s: every parameter of our nodes still exists',
	(file) => {
		const workflow = JSON.parse(readFileSync(path.join(examples, file), 'utf8')) as {
			nodes: Array<{ name: string; type: string; typeVersion: number; parameters: Record<string, unknown> }>;
		};
		const ours = workflow.nodes.filter((n) => types[n.type]);
		expect(ours.length).toBeGreaterThan(0);
		for (const node of ours) {
			// The version a node added in the editor gets.
			expect(node.typeVersion).toBe(node.type.endsWith('Trigger') ? 1.1 : 1);
			expect(problems(types[node.type], node.parameters, node.name)).toEqual([]);
		}
	},
);
