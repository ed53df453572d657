/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/MediaGen/MediaGen.node.ts: what n8n's editor shows in each operation's panel, computed from the node
// description the way the editor does: n8n-workflow's displayParameter for visibility, and the editor's rule that hides
// every field named in the `show` of a field a credential depends on (isAuthRelatedParameter in editor-ui's
// nodeTypesUtils).
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { MediaGen } from '../../../../nodes/MediaGen/MediaGen.node';

const description = new MediaGen().description;
const node = { typeVersion: 1 };

/** The parameter values n8n keeps for a node set to resource/operation (defaults of displayed fields). */
function valuesFor(resource: string, operation: string, extra: INodeParameters = {}): INodeParameters {
	return NodeHelpers.getNodeParameters(
		description.properties,
		{ resource, operation, ...extra },
		true,
		false,
		node,
		description,
	)!;
}

function shown(values: INodeParameters): string[] {
	return description.properties
		.filter((p) => p.type !== 'notice' && NodeHelpers.displayParameter(values, p, node, description))
		.map((p) => p.name);
}

/** The editor's hidden set: fields named in the `show` of any field that a credential's `show` names. */
function hiddenAsAuthentication(): Set<string> {
	const authFieldNames = new Set(
		(description.credentials ?? []).flatMap((c) => Object.keys(c.displayOptions?.show ?? {})),
	);
	const authFields = description.properties.filter((p) => authFieldNames.has(p.name));
	return new Set(authFields.flatMap((p: INodeProperties) => Object.keys(p.displayOptions?.show ?? {})));
}

const operations = (description.properties.filter((p) => p.name === 'operation') as INodeProperties[]).flatMap((p) =>
	(p.options ?? []).map((o) => [p.displayOptions!.show!.resource![0] as string, (o as { value: string }).value]),
);

describe('the panel of every operation', () => {
	test('no field is taken for part of authentication, so Resource, Operation and the rest stay visible', () => {
		expect([...hiddenAsAuthentication()]).toEqual([]);
	});

	test.each(operations)('%s → %s shows Resource and Operation', (resource, operation) => {
		const fields = shown(valuesFor(resource, operation));
		expect(fields).toEqual(expect.arrayContaining(['resource', 'operation']));
	});

	test.each(operations)(
		'%s → %s offers Waiting exactly where runs are started and waited for',
		(resource, operation) => {
			const startsRuns = ['generation:generate', 'app:runLook'].includes(`${resource}:${operation}`);
			const on = shown(valuesFor(resource, operation));
			expect(on.includes('waitForCompletion')).toBe(startsRuns);
			expect(on.includes('waitMode')).toBe(startsRuns);
			const off = shown(valuesFor(resource, operation, { waitForCompletion: false }));
			expect(off.includes('waitMode')).toBe(false);
		},
	);

	test('the signing-secret credential is asked for only in pause mode of Generate and Run Look', () => {
		const webhookCredential = description.credentials!.find((c) => c.name === 'mediaGenWebhookApi')!;
		const asks = (values: INodeParameters) =>
			NodeHelpers.displayParameter(values, webhookCredential, node, description);
		for (const [resource, operation] of operations) {
			const startsRuns = ['generation:generate', 'app:runLook'].includes(`${resource}:${operation}`);
			expect(asks(valuesFor(resource, operation, { waitMode: 'pause' }))).toBe(startsRuns);
			expect(asks(valuesFor(resource, operation))).toBe(false);
		}
	});

	test('the credential boxes come first: the placeholder sits before Resource, after Authentication', () => {
		const names = description.properties.map((p) => p.name);
		expect(description.properties.find((p) => p.name === 'credentials')?.type).toBe('credentials');
		expect(names.indexOf('credentials')).toBe(names.indexOf('authentication') + 1);
		expect(names.indexOf('credentials')).toBeLessThan(names.indexOf('resource'));
	});

	test('Generate lists its fields in panel order, waiting and outputs last', () => {
		expect(shown(valuesFor('generation', 'generate', { kind: 'image' }))).toEqual([
			'authentication',
			'credentials',
			'resource',
			'operation',
			'kind',
			'model',
			'modelInfo',
			'prompt',
			'modelOptions',
			'referenceImageProperties',
			'referenceImageUrls',
			'additionalFields',
			'waitForCompletion',
			'waitMode',
			'downloadOutputs',
			'waiting',
		]);
	});
});

describe('the canvas line under the node name', () => {
	const subtitleOf = (parameters: Record<string, string>) => {
		const expression = String(description.subtitle)
			.replace(/^=\{\{/, '')
			.replace(/\}\}$/, '');
		const $parameter = parameters;
		// The subtitle is an n8n expression over $parameter; evaluated here as plain JavaScript.
		return new Function('$parameter', `return (${expression});`)($parameter) as string;
	};

	test.each([
		[{ resource: 'generation', operation: 'generate', kind: 'video' }, 'generate: generation'],
		[{ resource: 'generation', operation: 'generate', kind: '={{ $json.kind }}' }, 'generate: generation'],
		[{ resource: 'file', operation: 'upload' }, 'upload: file'],
		[{ resource: 'app', operation: 'runLook' }, 'runLook: app'],
		[{ resource: 'model', operation: 'getMany' }, 'getMany: model'],
		[{ resource: 'generation', operation: 'estimateCost', kind: 'image' }, 'estimateCost: generation'],
		[{ resource: 'app', operation: 'estimateCost' }, 'estimateCost: app'],
	])('%j reads "%s"', (parameters, expected) => {
		expect(subtitleOf(parameters)).toBe(expected);
	});
});

describe('words a no-code user reads', () => {
	/** Every field and nested option of the node, with its display name and text. */
	function allFields(props: INodeProperties[] = description.properties): INodeProperties[] {
		return props.flatMap((p) => {
			const nested = (p.options ?? []).flatMap((o) =>
				'values' in o ? allFields(o.values as INodeProperties[]) : 'type' in o ? allFields([o as INodeProperties]) : [],
			);
			return [p, ...nested];
		});
	}

	test('labels name what a person sees, not binary properties', () => {
		const labels = allFields().map((p) => p.displayName);
		for (const label of labels) expect(label).not.toMatch(/\(Binary\)$|Binary Property/);
		expect(labels).toEqual(expect.arrayContaining(['File to Upload', 'Photo Files', 'Reference Image Files']));
	});

	test('the Pause notice names no setting of n8n and no JSON field; Time Limit shows whole minutes plainly', () => {
		const pause = description.properties.find((p) => p.name === 'pauseNotice')!;
		expect(pause.displayName).not.toMatch(/WEBHOOK_URL|timedOut|"true"|set to true/);
		const timeLimit = allFields().find((p) => p.name === 'timeoutMinutes')!;
		// n8n shows a number with numberPrecision 2 as "0.00" and "1.00".
		expect(timeLimit.typeOptions?.numberPrecision).toBeUndefined();
	});

	test('action names are short, as n8n names a new node after them', () => {
		const actions = description.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => (p.options ?? []).map((o) => String((o as { action?: string }).action)));
		expect(actions).toContain('Generate media');
		for (const action of actions) expect(action.length).toBeLessThanOrEqual(30);
	});
});
