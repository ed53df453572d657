// Pure checks made before any credit is spent: options resolution against the model's catalogue
// entry, and the request checks (prompt, files, URLs, keys, free tier).
import type { CatalogueModel } from '../../nodes/shared/records';
import { checkHttpsUrl, checkRequest, checkSettings, describeLimits } from '../../nodes/MediaGen/run/checkRequest';
import { acceptedNames, promptLimit, resolveOptions } from '../../nodes/MediaGen/catalogue/modelOptions';
import models from '../../sandbox/data/models.json';

const model = (id: string) => (models.models as unknown as CatalogueModel[]).find((m) => m.id === id)!;
const image = model('studio-image-v1');
const song = model('cadence-song-v1');
const draft = { prompt: 'p', imageCount: 0, hasEndFrame: false, hasAudio: false, identity: 'apiKey' as const };

describe('resolveOptions', () => {
	test('blank values are left out so defaults apply; resolution is always sent', () => {
		expect(resolveOptions(image, { aspect: '', format: null })).toEqual({
			options: { resolution: '1K' },
			problems: [],
		});
		expect(resolveOptions(image, { format: 'WEBP' }).options).toEqual({ format: 'WEBP', resolution: '1K' });
	});

	test('values mapped as text become the type of the allowed values', () => {
		const video = model('lumora-motion-3');
		const { options, problems } = resolveOptions(video, { duration: '10', audio: 'false' });
		expect(problems).toEqual([]);
		expect(options).toMatchObject({ duration: 10, audio: false });
	});

	test('an option the model does not accept, and a value it does not allow, are named with what is allowed', () => {
		const { problems } = resolveOptions(image, { duration: 5, resolution: '4K' });
		expect(problems[0]).toMatch(
			/^Duration \(Seconds\) \(duration\) is not accepted by Studio Image; remove it\. This model accepts: resolution, aspect, format\./,
		);
		expect(problems[1]).toBe(
			'Resolution (resolution) "4K" is not allowed for Studio Image. Allowed values: "1K", "2K" (default "1K").',
		);
	});

	test('music fields follow the mode; the mode goes in tier', () => {
		expect(resolveOptions(song, { title: 'T', vocal: 'f' }, 'Lyrics')).toEqual({
			options: { title: 'T', vocal: 'f', tier: 'Lyrics', resolution: 'song' },
			problems: [],
		});
		expect(resolveOptions(song, { vocal: 'm' }, 'Instrumental').problems[0]).toMatch(
			/Voice \(vocal\) is not used in Instrumental mode/,
		);
		expect(resolveOptions(song, {}, 'Opera').problems[0]).toMatch(/Music Mode "Opera" is not offered/);
		expect(resolveOptions(image, { style: 'x' }).problems[0]).toMatch(/used only by music models/);
	});

	test('an option key the catalogue lists but the node does not know is checked and passed through', () => {
		const withFps = { ...image, options: { ...image.options, fps: [24, 30] } } as CatalogueModel;
		expect(acceptedNames(withFps)).toContain('fps');
		expect(resolveOptions(withFps, { fps: '30' }).options).toMatchObject({ fps: 30 });
		expect(resolveOptions(withFps, { fps: '31' }).problems[0]).toMatch(/Allowed values: 24, 30/);
		expect(resolveOptions(image, { fps: 30 }).problems[0]).toMatch(/fps is not an option of Studio Image/);
	});

	test("the prompt limit is the mode's for music", () => {
		expect(promptLimit(song, 'Instrumental')).toBe(1000);
		expect(promptLimit(song)).toBe(3000);
		expect(promptLimit(image)).toBe(2000);
	});
});

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
		const avatar = (models.models as unknown as CatalogueModel[]).find((m) => m.inputs.includes('audio'))!;
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
