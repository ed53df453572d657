// nodes/MediaGen/run/runRequest.ts: the checks and the request Generate and Run Look share, with a context in memory.
import type { IExecuteFunctions } from 'n8n-workflow';

import { preparedRunOf, runRequestProblems, type RunRequest } from '../../../../../nodes/MediaGen/run/runRequest';
import type { CatalogueModel } from '../../../../../nodes/shared/records';
import type { CredentialKind } from '../../../../../nodes/shared/transport/identity';
import models from '../../../../../sandbox/data/models.json';
import { credentialsOf } from '../../../../helpers/identity';

const catalogue = models.models as unknown as CatalogueModel[];
const freeImage = catalogue.find((m) => m.id === 'studio-image-v1')!;
const paidImage = catalogue.find((m) => m.id === 'lumora-image-2')!;

/**
 * A Generate step's context: parameters by name, a credential of `kind` at `baseUrl`, GET /models answered from the
 * sandbox's catalogue.
 */
function context(
	parameters: Record<string, unknown> = {},
	kind: CredentialKind = 'apiKey',
	baseUrl = 'https://a.example/v1',
): IExecuteFunctions {
	parameters = { authentication: kind, ...parameters };
	return {
		getCredentials: credentialsOf(kind, baseUrl),
		getNode: () => ({ id: 'node-1', name: 'Media Generation', type: 'n8n-nodes-mediagen.mediaGen' }),
		getInstanceId: () => 'instance-123456789',
		getExecutionId: () => '42',
		getWorkflowDataProxy: () => ({ $runIndex: 0 }),
		getNodeParameter: (name: string, _item: number, fallback: unknown) => parameters[name] ?? fallback,
		helpers: {
			httpRequestWithAuthentication: async () => ({ statusCode: 200, body: { models: catalogue }, headers: {} }),
		},
	} as unknown as IExecuteFunctions;
}

const request = (model: CatalogueModel, more: Partial<RunRequest> = {}): RunRequest => ({
	model,
	body: { kind: model.kind, model: model.id, prompt: 'a lighthouse', options: {} },
	draft: { prompt: 'a lighthouse', imageCount: 0, hasEndFrame: false, hasAudio: false },
	maxCredits: undefined,
	...more,
});

test('a request the model takes, with settings in shape, has no problem', async () => {
	expect(await runRequestProblems(context(), request(paidImage))).toEqual([]);
});

test("the model's checks come first, then the settings'", async () => {
	const problems = await runRequestProblems(
		context({}, 'apiKey', 'https://b.example/v1'),
		request(paidImage, {
			draft: { prompt: '', imageCount: 0, hasEndFrame: false, hasAudio: false },
			requestKey: 'k'.repeat(121),
			maxCredits: -1,
		}),
	);
	expect(problems).toEqual([
		'Prompt is empty. Write at least 1 character.',
		'Request Key is 121 characters long; the limit is 120.',
		'Max Credits per Execution is -1; enter a number of credits, 0 or more, or remove the field for no cap.',
	]);
});

test('an anonymous ID is told which models its free tier covers, read from the catalogue', async () => {
	const anonymous = () => context({}, 'anonymous', 'https://c.example/v1');
	expect(await runRequestProblems(anonymous(), request(freeImage))).toEqual([]);
	const [problem] = await runRequestProblems(anonymous(), request(paidImage));
	expect(problem).toMatch(/^Model: .* is not covered by the anonymous free tier, .*\(studio-image-v1\)\./);
});

test('the prepared item: the body with webhook URL and key, the settings, the cap and the files', () => {
	const typed = preparedRunOf(
		context(),
		2,
		request(paidImage, { webhookUrl: 'https://hooks.example/x', requestKey: 'mine', maxCredits: '50' }),
		{ images: [{ url: 'https://img.example/a.png' }] },
	);
	expect(typed).toMatchObject({
		itemIndex: 2,
		body: {
			kind: 'image',
			model: 'lumora-image-2',
			prompt: 'a lighthouse',
			options: {},
			webhookUrl: 'https://hooks.example/x',
			requestKey: 'mine',
		},
		images: [{ url: 'https://img.example/a.png' }],
		model: paidImage,
		typedKey: true,
		maxCredits: 50,
		settings: { wait: true, mode: 'poll' },
	});
	const keyed = preparedRunOf(context(), 0, request(paidImage, { extraJson: { app: 'a', look: 'b' } }), {
		images: [],
	});
	expect(keyed.body.requestKey).toBe('n8n-instance-123-42-node-1-0-1');
	expect(keyed.typedKey).toBe(false);
	expect(keyed.maxCredits).toBeUndefined();
	expect(keyed.extraJson).toEqual({ app: 'a', look: 'b' });
	expect(keyed.body).not.toHaveProperty('webhookUrl');
});
