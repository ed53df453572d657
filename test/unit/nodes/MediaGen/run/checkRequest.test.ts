// nodes/MediaGen/run/checkRequest.ts: the checks made before any credit is spent (prompt, files, URLs, keys,
// free tier), an item's request checked and completed (with a context in memory).
import type { IExecuteFunctions } from 'n8n-workflow';

import type { CatalogueModel } from '../../../../../nodes/shared/records';
import type { CredentialKind } from '../../../../../nodes/shared/transport/identity';
import {
	checkedRequest,
	checkHttpsUrl,
	checkRequest,
	checkSettings,
	describeLimits,
} from '../../../../../nodes/MediaGen/run/checkRequest';
import { catalogue, catalogueModel as model } from '../../../../helpers/catalogue';
import { credentialsOf } from '../../../../helpers/identity';

const image = model('studio-image-v1');
const song = model('cadence-song-v1');
/** A request of `m` with prompt `p`, `images` reference images and the files given. */
const request = (
	m: CatalogueModel,
	more: { prompt?: string; images?: number; endFrame?: boolean; audio?: boolean } = {},
) => {
	const file = (field: string) => ({ url: 'https://files.example/x', field });
	return {
		model: m,
		body: { prompt: more.prompt ?? 'p', options: {} },
		images: Array.from({ length: more.images ?? 0 }, () => file('Reference Image URLs')),
		...(more.endFrame ? { endFrame: file('End Frame URL') } : {}),
		...(more.audio ? { audio: file('Driving Audio URL') } : {}),
	};
};

describe('checkRequest', () => {
	test('a fine request has no problems', () => {
		expect(checkRequest(request(image), 'apiKey')).toEqual([]);
	});

	test('each problem names its field and what is allowed', () => {
		const problems = checkRequest(request(image, { prompt: 'x'.repeat(2001), images: 5, endFrame: true }), 'apiKey');
		expect(problems).toEqual([
			'Prompt is 2001 characters long; Studio Image takes at most 2000.',
			'Reference Images: 5 given; Studio Image takes at most 4.',
			'End Frame: Studio Image does not support an end frame; remove it.',
		]);
	});

	test('the fields that do not depend on the model are checked on their own, each message a sentence', () => {
		const api = 'https://api.example.com/v1';
		expect(
			checkSettings({ webhookUrl: 'http://hooks.example.com/x', requestKey: 'k'.repeat(121), maxCredits: -5 }, api),
		).toEqual([
			'Webhook URL: "http://hooks.example.com/x" must start with https:// (the service accepts only https addresses).',
			'Request Key is 121 characters long; the limit is 120.',
			'Max Credits per Execution is -5; enter a number of credits, 0 or more, or remove the field for no cap.',
		]);
		expect(checkSettings({ maxCredits: 0 }, api)).toEqual([]);
	});

	test.each([
		'https://10.0.0.5/hook',
		'https://192.168.1.20/webhook/x',
		'https://172.16.4.1/x',
		'https://127.0.0.1/x',
		'https://169.254.169.254/latest',
		'https://localhost/x',
		'https://n8n.local/webhook',
		'https://[::1]/x',
		'https://[fd12:3456::1]/x',
	])('a Webhook URL on a private or local host (%s) is refused in plain words', (url) => {
		const [problem] = checkSettings({ webhookUrl: url }, 'https://api.example.com/v1');
		expect(problem).toMatch(/^Webhook URL: .+ is a private or local address, and the service delivers only to public/);
	});

	test('a Webhook URL on the same local host as the API (the sandbox) and public hosts pass', () => {
		expect(checkSettings({ webhookUrl: 'http://127.0.0.1:5678/webhook/x' }, 'http://127.0.0.1:4010/v1')).toEqual([]);
		expect(checkSettings({ webhookUrl: 'https://n8n.example.com/webhook/x' }, 'https://a.example/v1')).toEqual([]);
		expect(checkSettings({ webhookUrl: 'https://100.200.1.1/x' }, 'https://a.example/v1')).toEqual([]);
	});

	test('the free tier covers only the free image engine; a talking-avatar model needs audio', () => {
		expect(checkRequest(request(song), 'anonymous')[0]).toMatch(/not covered by the anonymous free tier/);
		const avatar = catalogue.find((m) => m.inputs.includes('audio'))!;
		expect(checkRequest(request(avatar), 'apiKey')).toContain(
			`Driving Audio: ${avatar.name} is a talking-avatar model and needs an audio file (binary property or URL).`,
		);
	});

	test('the address shape check: https anywhere, plain http only on this machine', () => {
		expect(checkHttpsUrl('https://a.example/x.png', 'F', 'e')).toBeUndefined();
		expect(checkHttpsUrl('http://127.0.0.1:4010/files/x.png', 'F', 'e')).toBeUndefined();
		expect(checkHttpsUrl('http://a.example/x.png', 'F', 'e')).toMatch(/must start with https/);
		expect(checkHttpsUrl('not a url', 'F', 'for example x')).toMatch(
			/is not a URL\. Use a full https:\/\/ address, for example x\./,
		);
	});

	test('the limits line never says "undefined"', () => {
		const bare = { ...image, prompt_max_chars: undefined } as unknown as CatalogueModel;
		expect(describeLimits(bare)).toBe('Studio Image (studio-image-v1) accepts: a prompt, at most 4 reference images.');
	});
});

describe('checkedRequest', () => {
	const paidImage = model('lumora-image-2');

	/** A Generate step's context: parameters by name, a credential of `kind` at `baseUrl`, GET /models answered. */
	function context(kind: CredentialKind = 'apiKey', baseUrl = 'https://a.example/v1'): IExecuteFunctions {
		return {
			getCredentials: credentialsOf(kind, baseUrl),
			getNode: () => ({ id: 'node-1', name: 'Media Generation', type: 'n8n-nodes-mediagen.mediaGen' }),
			getInstanceId: () => 'instance-123456789',
			getExecutionId: () => '42',
			getWorkflowDataProxy: () => ({ $runIndex: 0 }),
			getNodeParameter: (name: string, _item: number, fallback: unknown) =>
				name === 'authentication' ? kind : fallback,
			helpers: {
				httpRequestWithAuthentication: async () => ({ statusCode: 200, body: { models: catalogue }, headers: {} }),
			},
		} as unknown as IExecuteFunctions;
	}
	const read = (m: CatalogueModel, prompt = 'a lighthouse', itemIndex = 0) => ({
		itemIndex,
		model: m,
		body: { kind: m.kind, model: m.id, prompt, options: {} },
		images: [{ url: 'https://img.example/a.png', field: 'Reference Image URLs' }],
	});
	const refusal = async (promise: Promise<unknown>) => ((await promise.catch((e: Error) => e)) as Error).message;

	test("one refusal names every problem: the operation's own, the model's, the settings', the addresses'", async () => {
		const bad = {
			...read(paidImage, ''),
			images: [{ url: 'http://img.example/a.png', field: 'Reference Image URLs' }],
		};
		expect(
			await refusal(
				checkedRequest(
					context('apiKey', 'https://b.example/v1'),
					bad,
					{ requestKey: 'k'.repeat(121), maxCredits: -1 },
					['Tier is wrong.'],
				),
			),
		).toBe(
			'5 problems: Tier is wrong. Prompt is empty. Write at least 1 character. Request Key is 121 characters long; ' +
				'the limit is 120. Max Credits per Execution is -1; enter a number of credits, 0 or more, or remove the ' +
				'field for no cap. Reference Image URLs: "http://img.example/a.png" must start with https:// (the service ' +
				'accepts only https addresses).',
		);
	});

	test('an anonymous ID is told which models its free tier covers, read from the catalogue', async () => {
		const anonymous = () => context('anonymous', 'https://c.example/v1');
		await expect(checkedRequest(anonymous(), read(model('studio-image-v1')), {})).resolves.toBeDefined();
		expect(await refusal(checkedRequest(anonymous(), read(paidImage), {}))).toMatch(
			/^Model: .* is not covered by the anonymous free tier, .*\(studio-image-v1\)\./,
		);
	});

	test('the checked request: the body with webhook URL and key, the settings, the cap and the files', async () => {
		const fields = { webhookUrl: 'https://hooks.example/x', requestKey: 'mine', maxCredits: '50' };
		expect(await checkedRequest(context(), read(paidImage, 'a lighthouse', 2), fields)).toMatchObject({
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
		const keyed = await checkedRequest(context(), { ...read(paidImage), extraJson: { app: 'a', look: 'b' } }, {});
		expect(keyed.body.requestKey).toBe('n8n-instance-123-42-node-1-0-1');
		expect(keyed.typedKey).toBe(false);
		expect(keyed.maxCredits).toBeUndefined();
		expect(keyed.extraJson).toEqual({ app: 'a', look: 'b' });
		expect(keyed.body).not.toHaveProperty('webhookUrl');
	});
});
