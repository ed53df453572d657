// nodes/MediaGen/run/checkRequest.ts: the checks made before any credit is spent (prompt, files, URLs, keys,
// free tier).
import type { CatalogueModel } from '../../../../../nodes/shared/records';
import {
	checkHttpsUrl,
	checkRequest,
	checkSettings,
	describeLimits,
} from '../../../../../nodes/MediaGen/run/checkRequest';
import { catalogue, catalogueModel as model } from '../../../../helpers/catalogue';

const image = model('studio-image-v1');
const song = model('cadence-song-v1');
const draft = { prompt: 'p', imageCount: 0, hasEndFrame: false, hasAudio: false, identity: 'apiKey' as const };

describe('checkRequest', () => {
	test('a fine request has no problems', () => {
		expect(checkRequest(image, draft)).toEqual([]);
	});

	test('each problem names its field and what is allowed', () => {
		const problems = checkRequest(image, {
			...draft,
			prompt: 'x'.repeat(2001),
			imageCount: 5,
			hasEndFrame: true,
		});
		expect(problems).toEqual([
			'Prompt is 2001 characters long; Studio Image takes at most 2000.',
			'Reference Images: 5 given; Studio Image takes at most 4.',
			'End Frame: Studio Image does not support an end frame; remove it.',
		]);
	});

	test('the fields that do not depend on the model are checked on their own, each message a sentence', () => {
		const api = 'https://api.example.com/v1';
		expect(
			checkSettings({
				webhookUrl: 'http://hooks.example.com/x',
				requestKey: 'k'.repeat(121),
				maxCredits: -5,
				apiBaseUrl: api,
			}),
		).toEqual([
			'Webhook URL: "http://hooks.example.com/x" must start with https:// (the service accepts only https addresses).',
			'Request Key is 121 characters long; the limit is 120.',
			'Max Credits per Execution is -5; enter a number of credits, 0 or more, or remove the field for no cap.',
		]);
		expect(checkSettings({ maxCredits: 0, apiBaseUrl: api })).toEqual([]);
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
		const [problem] = checkSettings({ webhookUrl: url, apiBaseUrl: 'https://api.example.com/v1' });
		expect(problem).toMatch(/^Webhook URL: .+ is a private or local address, and the service delivers only to public/);
	});

	test('a Webhook URL on the same local host as the API (the sandbox) and public hosts pass', () => {
		expect(
			checkSettings({ webhookUrl: 'http://127.0.0.1:5678/webhook/x', apiBaseUrl: 'http://127.0.0.1:4010/v1' }),
		).toEqual([]);
		expect(
			checkSettings({ webhookUrl: 'https://n8n.example.com/webhook/x', apiBaseUrl: 'https://a.example/v1' }),
		).toEqual([]);
		expect(checkSettings({ webhookUrl: 'https://100.200.1.1/x', apiBaseUrl: 'https://a.example/v1' })).toEqual([]);
	});

	test('the free tier covers only the free image engine; a talking-avatar model needs audio', () => {
		expect(checkRequest(song, { ...draft, identity: 'anonymous' })[0]).toMatch(
			/not covered by the anonymous free tier/,
		);
		const avatar = catalogue.find((m) => m.inputs.includes('audio'))!;
		expect(checkRequest(avatar, draft)).toContain(
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
