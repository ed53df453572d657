// Bad input across every operation and both credentials: each is refused with a message that names
// the field and what is allowed, and the sandbox sees no POST /generations for any of them.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { makePng } from '../../sandbox/media';
import { runNode } from '../helpers/engine';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
/** A lenient sandbox, whatever SANDBOX_STRICT says: its models say which take a negative prompt or an end frame. */
let lenient: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
	lenient = await startBackend({ strict: false });
});
afterAll(async () => {
	await backend.sandbox.close();
	await lenient.sandbox.close();
});

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const gen = (kind: string, model: string, prompt: string, extra: IDataObject = {}): IDataObject => ({
	resource: 'generation',
	operation: 'generate',
	kind,
	model: rl(model),
	prompt,
	...extra,
});
const opts = (value: IDataObject) => ({ modelOptions: { mappingMode: 'defineBelow', value } });
const song = (mode: string, value: IDataObject, prompt = 'a song') =>
	gen('music', 'cadence-song-v1', prompt, { musicMode: mode, ...opts(value) });
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://img.example.com/${i}.png`).join(',');
const bin = (mime: string, bytes: Buffer, name: string) =>
	({ data: bytes.toString('base64'), mimeType: mime, fileName: name }) as never;
const look = (app: string, lookId: string, slots: IDataObject[]) => ({
	resource: 'app',
	operation: 'runLook',
	app: rl(app),
	look: lookId,
	photos: { slot: slots },
});
const photos = (): INodeExecutionData[] => [
	{ json: {}, binary: { a: bin('image/png', makePng('a'), 'a.png'), w: bin('image/webp', makePng('w'), 'w.webp') } },
];

type Case = [
	string,
	IDataObject,
	RegExp,
	{
		items?: () => INodeExecutionData[];
		creds?: 'anon' | 'badAnon' | 'badKey' | 'badUrl';
		/** The check reads the sandbox's own model fields (negative_prompt, end_frame), which strict mode leaves out. */
		lenientCatalogue?: boolean;
	}?,
];

const cases: Case[] = [
	[
		'prompt over the model limit',
		gen('image', 'pixelforge-sketch', 'x'.repeat(1001)),
		/Prompt is 1001 characters long; PixelForge Sketch takes at most 1000/,
	],
	[
		'music prompt over the Describe limit',
		song('Describe', {}, 'x'.repeat(3001)),
		/in Describe mode takes at most 3000/,
	],
	['music prompt over the Lyrics limit', song('Lyrics', {}, 'x'.repeat(5001)), /in Lyrics mode takes at most 5000/],
	[
		'music prompt over the Instrumental limit',
		song('Instrumental', {}, 'x'.repeat(1001)),
		/in Instrumental mode takes at most 1000/,
	],
	[
		"empty prompt (n8n's own required-field check)",
		gen('image', 'studio-image-v1', ''),
		/Parameter "Prompt" is required/,
	],
	['a blank prompt', gen('image', 'studio-image-v1', '={{ "" }}'), /Prompt is empty. Write at least 1 character/],
	[
		'an option the model does not accept',
		gen('image', 'nimbus-xl', 'p', opts({ format: 'PNG' })),
		/File Format \(format\) is not accepted by Nimbus XL.*accepts: resolution, aspect/,
	],
	[
		'a resolution the model does not allow',
		gen('image', 'studio-image-v1', 'p', opts({ resolution: '4K' })),
		/Resolution \(resolution\) "4K" is not allowed.*Allowed values: "1K", "2K"/,
	],
	[
		'an aspect the model does not allow',
		gen('image', 'studio-image-v1', 'p', opts({ aspect: '21:9' })),
		/Aspect Ratio \(aspect\) "21:9" is not allowed.*"1:1", "16:9", "9:16", "4:3", "3:4"/,
	],
	[
		'a duration the model does not allow',
		gen('video', 'lumora-motion-3', 'p', opts({ duration: 7 })),
		/Duration \(Seconds\) \(duration\) 7 is not allowed.*Allowed values: 5, 8, 10/,
	],
	[
		'a duration on an image model',
		gen('image', 'studio-image-v1', 'p', opts({ duration: 5 })),
		/Duration \(Seconds\) \(duration\) is not accepted by Studio Image/,
	],
	[
		'sound on a model without a sound toggle',
		gen('video', 'auralis-loop', 'p', opts({ audio: true })),
		/Sound \(audio\) is not accepted by Auralis Loop/,
	],
	[
		'a file format outside the list',
		gen('image', 'pixelforge-ultra', 'p', opts({ format: 'JPG' })),
		/File Format \(format\) "JPG" is not allowed.*"PNG", "WEBP"/,
	],
	[
		'a tier outside the list',
		gen('video', 'kestrel-move', 'p', opts({ tier: 'fast' })),
		/Tier \(tier\) "fast" is not allowed.*"smooth", "dynamic"/,
	],
	[
		'style in Instrumental mode',
		song('Instrumental', { style: 'jazz' }),
		/Style \(style\) is not used in Instrumental mode.*uses: Song Title/,
	],
	[
		'title in Describe mode',
		song('Describe', { title: 'T' }),
		/Song Title \(title\) is not used in Describe mode.*uses: Style/,
	],
	['voice in Describe mode', song('Describe', { vocal: 'm' }), /Voice \(vocal\) is not used in Describe mode/],
	[
		'a title over 80 characters',
		song('Lyrics', { title: 't'.repeat(81) }),
		/Song Title is 81 characters long; the limit is 80/,
	],
	[
		'a style over 1000 characters',
		song('Lyrics', { style: 's'.repeat(1001) }),
		/Style is 1001 characters long; the limit is 1000/,
	],
	['a voice outside m/f', song('Lyrics', { vocal: 'x' }), /Voice "x" is not allowed. Allowed values: m, f/],
	['an unknown music mode', song('Rap', {}), /Music Mode "Rap" is not offered.*Describe, Lyrics, Instrumental/],
	[
		'too many reference images for the model',
		gen('image', 'auralis-canvas-mini', 'p', { referenceImageUrls: urls(2) }),
		/Reference Images: 2 given; Auralis Canvas Mini takes at most 1/,
	],
	[
		'reference images on a model that takes none',
		gen('image', 'pixelforge-sketch', 'p', { referenceImageUrls: urls(1) }),
		/PixelForge Sketch takes no reference images/,
	],
	[
		'more than 14 reference images',
		gen('image', 'orchid-portrait', 'p', { referenceImageUrls: urls(15) }),
		/Reference Images: 15 given; Orchid Portrait takes at most 14/,
	],
	[
		'an end frame on a model without one',
		gen('video', 'kestrel-move-fast', 'p', { additionalFields: { endFrameUrl: 'https://img.example.com/e.png' } }),
		/End Frame: Kestrel Move Fast does not support an end frame/,
		{ lenientCatalogue: true },
	],
	[
		'audio on a model without audio input',
		gen('video', 'auralis-loop', 'p', { additionalFields: { audioUrl: 'https://a.example.com/v.mp3' } }),
		/Driving Audio: Auralis Loop does not take audio/,
	],
	[
		'a talking-avatar model without audio',
		gen('video', 'orchid-avatar', 'p'),
		/Orchid Avatar is a talking-avatar model and needs an audio file/,
	],
	[
		'a negative prompt on a model that does not use one',
		gen('image', 'studio-image-v1', 'p', { additionalFields: { negativePrompt: 'blur' } }),
		/Negative Prompt is not used by Studio Image/,
		{ lenientCatalogue: true },
	],
	[
		'a negative prompt over 2000 characters',
		gen('image', 'lumora-image-2', 'p', { additionalFields: { negativePrompt: 'n'.repeat(2001) } }),
		/Negative Prompt is 2001 characters long; the limit is 2000/,
	],
	[
		'a webhook URL that is not https',
		gen('image', 'studio-image-v1', 'p', { additionalFields: { webhookUrl: 'http://hooks.example.com/x' } }),
		/Webhook URL: "http:\/\/hooks\.example\.com\/x" must start with https:\/\//,
	],
	[
		'a webhook URL over 500 characters',
		gen('image', 'studio-image-v1', 'p', {
			additionalFields: { webhookUrl: `https://hooks.example.com/${'a'.repeat(480)}` },
		}),
		/Webhook URL is 506 characters long; the limit is 500/,
	],
	[
		'a webhook URL that is not a URL',
		gen('image', 'studio-image-v1', 'p', { additionalFields: { webhookUrl: 'hooks dot example' } }),
		/Webhook URL: "hooks dot example" is not a URL/,
	],
	[
		'a request key over 120 characters',
		gen('image', 'studio-image-v1', 'p', { additionalFields: { requestKey: 'k'.repeat(121) } }),
		/Request Key is 121 characters long; the limit is 120/,
	],
	[
		'a model of another kind',
		gen('video', 'studio-image-v1', 'p'),
		/Model: "studio-image-v1" \(Studio Image\) makes images, not videos/,
	],
	['an unknown model', gen('image', 'no-such-model', 'p'), /Model: "no-such-model" is not in the model catalogue/],
	[
		'a reference URL that is not a URL',
		gen('image', 'lumora-image-2', 'p', { referenceImageUrls: 'my photo' }),
		/"my photo" is not a URL/,
	],
	[
		'a reference file of the wrong type',
		gen('image', 'lumora-image-2', 'p', { referenceImageProperties: 'd' }),
		/Reference Images: the file in "d" is text\/plain, which is not accepted here/,
		{ items: () => [{ json: {}, binary: { d: bin('text/plain', Buffer.from('hi'), 'a.txt') } }] },
	],
	[
		'an oversize reference image',
		gen('image', 'lumora-image-2', 'p', { referenceImageProperties: 'd' }),
		/is 10\.5 MB \(\d+ bytes\); image files may be at most 10 MB/,
		{ items: () => [{ json: {}, binary: { d: bin('image/png', Buffer.alloc(10 * 1024 * 1024 + 1), 'big.png') } }] },
	],
	[
		'a missing binary property',
		gen('image', 'lumora-image-2', 'p', { referenceImageProperties: 'nope' }),
		/Reference Images: the input item has no binary property "nope"/,
	],
	[
		'driving audio of the wrong type',
		gen('video', 'orchid-avatar', 'p', { referenceImageUrls: urls(1), additionalFields: { audioProperty: 'a' } }),
		/Driving Audio: the file in "a" is image\/png.*Accepted types: MP3, WAV, M4A/,
		{ items: photos },
	],
	[
		'anonymous: a model the free tier does not cover',
		gen('image', 'lumora-image-2', 'p'),
		/not covered by the anonymous free tier/,
		{ creds: 'anon' },
	],
	[
		'anonymous: the house video engine',
		gen('video', 'studio-video-v1', 'p'),
		/not covered by the anonymous free tier/,
		{ creds: 'anon' },
	],
	[
		'anonymous: a malformed anonymous id',
		gen('image', 'studio-image-v1', 'p'),
		/anonymous ID must be 8 to 80 characters/,
		{ creds: 'badAnon' },
	],
	[
		'a malformed API key',
		gen('image', 'studio-image-v1', 'p'),
		/API key does not have the expected shape: sk_ followed by exactly 40 hex characters/,
		{ creds: 'badKey' },
	],
	[
		'a base URL that is not a URL',
		gen('image', 'studio-image-v1', 'p'),
		/Base URL must start with https:\/\//,
		{ creds: 'badUrl' },
	],
	[
		'run look: a slot left empty',
		look('couple-poster', 'noir', [{ slotId: 'first', binaryProperties: 'a' }]),
		/Photos: the slot "Second person" takes exactly 1 photo; 0 given/,
		{ items: photos },
	],
	[
		'run look: a file the slot does not accept',
		look('couple-poster', 'noir', [
			{ slotId: 'first', binaryProperties: 'a' },
			{ slotId: 'second', binaryProperties: 'a' },
			{ slotId: 'place', binaryProperties: 'w' },
		]),
		/this slot accepts image\/png,image\/jpeg/,
		{ items: photos },
	],
	[
		'run look: an unknown look',
		look('pet-portrait', 'cubist', [{ slotId: 'pet', binaryProperties: 'a' }]),
		/Look: "cubist" is not a look of Pet Portrait.*Royal Oil Painting \(royal\)/,
		{ items: photos },
	],
	['run look: an unknown app', look('no-app', 'royal', []), /App: "no-app" is not in the app catalogue.*pet-portrait/],
	[
		'run look: an unknown slot',
		look('pet-portrait', 'royal', [{ slotId: 'cat', binaryProperties: 'a' }]),
		/Photos: "cat" is not a slot of Pet Portrait.*Pet photo \(pet\)/,
		{ items: photos },
	],
	[
		'upload: a type the service does not accept',
		{ resource: 'file', operation: 'upload', binaryPropertyName: 'd' },
		/File to Upload: the file in "d" is application\/zip.*PNG, JPEG, WebP, MP4, MOV, MP3, WAV, M4A/,
		{ items: () => [{ json: {}, binary: { d: bin('application/zip', Buffer.from('PK'), 'a.zip') } }] },
	],
	[
		'upload: an oversize image',
		{ resource: 'file', operation: 'upload', binaryPropertyName: 'd' },
		/image files may be at most 10 MB/,
		{ items: () => [{ json: {}, binary: { d: bin('image/webp', Buffer.alloc(10 * 1024 * 1024 + 1), 'big.webp') } }] },
	],
	['get: an empty run ID', { resource: 'generation', operation: 'get', runId: '' }, /Parameter "Run ID" is required/],
	[
		'get: a blank run ID from an expression',
		{ resource: 'generation', operation: 'get', runId: '={{ $json.missing ?? "" }}' },
		/Run ID is empty/,
	],
	['wait: an empty run ID', { resource: 'generation', operation: 'wait', runId: ' ' }, /Run ID is empty/],
];

test('there are at least 40 distinct bad inputs', () => {
	expect(new Set(cases.map((c) => c[0])).size).toBeGreaterThanOrEqual(40);
});

test.each(cases.map((c) => [c[0], c[1], c[2], c[3] ?? {}] as const))(
	'%s',
	async (_name, parameters, message, extra) => {
		const sb = extra.lenientCatalogue ? lenient : backend;
		const creds =
			extra.creds === 'anon'
				? sb.anonCredentials('anon-bad-input-01')
				: extra.creds === 'badAnon'
					? sb.anonCredentials('no')
					: extra.creds === 'badKey'
						? { mediaGenApi: { baseUrl: sb.sandbox.baseUrl, apiKey: 'sk_1234' } }
						: extra.creds === 'badUrl'
							? { mediaGenApi: { baseUrl: 'api.example.com/v1', apiKey: sb.account.keys[0] } }
							: sb.apiCredentials;
		const authentication = extra.creds === 'anon' || extra.creds === 'badAnon' ? 'anonymous' : 'apiKey';
		const posts = sb.requests('POST /v1/generations').length;
		const spent = sb.charges();
		const r = await runNode({
			parameters: { authentication, ...parameters },
			items: extra.items?.(),
			credentials: creds,
		});
		expect(r.error?.message).toMatch(message);
		expect(sb.requests('POST /v1/generations').length).toBe(posts);
		expect(sb.charges()).toBe(spent);
	},
);

// One wording of "refused before sending, nothing charged" (runErrors.ts NOTHING_SENT), said once: a file refusal
// used to add its own "Nothing was sent or charged." after the step's.
test.each([
	['Generate, the step refused', gen('image', 'lumora-image-2', 'p', { referenceImageProperties: 'd' }), false],
	['Generate, Continue On Fail', gen('image', 'lumora-image-2', 'p', { referenceImageProperties: 'd' }), true],
	['File → Upload', { resource: 'file', operation: 'upload', binaryPropertyName: 'd' }, false],
] as const)('a file of the wrong type, %s: "nothing was charged" said once', async (_name, parameters, onFail) => {
	const spent = backend.charges();
	const r = await runNode({
		parameters: { authentication: 'apiKey', ...parameters },
		items: [{ json: {}, binary: { d: bin('application/zip', Buffer.from('PK'), 'a.zip') } }],
		credentials: backend.apiCredentials,
		nodeOverrides: onFail ? { continueOnFail: true } : {},
	});
	const description = String(onFail ? r.items[0].json.description : r.error?.description);
	expect(description).toMatch(/^Nothing was submitted and nothing was charged[.:] /);
	expect(description.match(/charged/gi)).toHaveLength(1);
	expect(backend.charges()).toBe(spent);
});
