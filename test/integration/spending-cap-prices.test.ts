// Max Credits per Execution with runs whose options are not the model's defaults (issue 33, point 3): a batch under a
// cap never spends more than the cap plus the price of one run whose price could not be predicted. Prices come from
// the catalogue at defaults, else from this account's earlier runs; a run of unknown price is sent alone while
// credits are left. Sandbox prices (CONTRIBUTING "Price formula"): lumora-motion-3-fast is 90 at 720p/5 s/no sound,
// 180 at 8 s with sound; lumora-image-2 is 25 at 2K, 38 at 4K; orchid-avatar is 185 a 5 s clip, 2,220 for 60 s audio.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { generate } from '../helpers/generate';
import { chargesOf } from '../helpers/ledger';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { startWaitingHost, type WaitingHost } from '../helpers/waitingHost';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
let host: WaitingHost;
beforeAll(async () => {
	backend = await startBackend({ timeScale: 0.002, durations: { pendingMs: 20, image: 100, video: 200, music: 100 } });
	host = await startWaitingHost();
});
afterAll(async () => {
	await host.close();
	await backend.sandbox.close();
});

const continueOnFail = { nodeOverrides: { onError: 'continueRegularOutput' as const } };
const prompts = (n: number, word: string) =>
	Array.from({ length: n }, (_, i) => ({ json: { prompt: `${word} ${i}` } }));
const video8sSound = { duration: 8, audio: true };

function params(kind: string, model: string, options: IDataObject, maxCredits?: number): IDataObject {
	return {
		kind,
		model,
		prompt: '={{ $json.prompt }}',
		modelOptions: { mappingMode: 'defineBelow', value: options },
		...(maxCredits === undefined ? {} : { additionalFields: { maxCredits } }),
		downloadOutputs: false,
	};
}

test('video, 8 s with sound, no earlier run: the first goes alone, its price (180) then refuses the rest', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const r = await generate(
		own.creds,
		params('video', 'lumora-motion-3-fast', video8sSound, 300),
		prompts(3, 'a fox'),
		continueOnFail,
	);
	expect(r.items.map((i) => i.json.status ?? i.json.errorCode)).toEqual(['SUCCEEDED', 'spending_cap', 'spending_cap']);
	expect(r.items[1].json.error).toBe(
		'Max Credits per Execution (300) reached: this run would cost 180 credits and 180 credits are already spent by ' +
			'this step in this execution',
	);
	expect(r.items[1].json.description).toMatch(/the cap can be passed by at most the price of that one run/);
	expect(backend.charges(own.id)).toBe(180); // at most cap + one unpredictable run; here under the cap
	expect(chargesOf(backend.sandbox, own.id)).toHaveLength(1);
});

test("video: with the combination in the account's history, a batch that would cross the cap is refused up front", async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const first = await generate(own.creds, params('video', 'lumora-motion-3-fast', video8sSound), prompts(1, 'seed'));
	expect(first.items[0].json.cost).toBe(180);
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(own.creds, params('video', 'lumora-motion-3-fast', video8sSound, 300), prompts(3, 'a fox'));
	expect(r.error?.message).toBe(
		'Max Credits per Execution is 300: these 3 runs would cost 540 credits at the prices known in advance',
	);
	expect(r.error?.description).toMatch(/^Nothing was submitted and nothing was charged/);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges(own.id)).toBe(180);
});

test('image, 4K (38 credits, catalogue 25): never past the cap once the price is known', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const r = await generate(
		own.creds,
		params('image', 'lumora-image-2', { resolution: '4K' }, 70),
		prompts(3, 'a cat'),
		continueOnFail,
	);
	expect(r.items.map((i) => i.json.cost ?? i.json.errorCode)).toEqual([38, 'spending_cap', 'spending_cap']);
	expect(backend.charges(own.id)).toBe(38);
});

test('music in another mode costs the catalogue price: the cap stops at the last run that fits', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const r = await generate(
		own.creds,
		{ ...params('music', 'cadence-song-v1', {}, 150), musicMode: 'Instrumental' },
		prompts(3, 'calm piano'),
		continueOnFail,
	);
	expect(r.items.map((i) => i.json.cost ?? i.json.errorCode)).toEqual([60, 60, 'spending_cap']);
	expect(r.items[2].json.error).toBe(
		'Max Credits per Execution (150) reached: this run would cost 60 credits and 120 credits are already spent by ' +
			'this step in this execution',
	);
	expect(backend.charges(own.id)).toBe(120);
});

/** 60 seconds of MP3 as the sandbox measures it (128 kbit/s). */
function sixtySecondsOfAudio(): INodeExecutionData['binary'] {
	const data = Buffer.alloc(960_000, 1);
	return { voice: { data: data.toString('base64'), mimeType: 'audio/mpeg', fileName: 'voice.mp3' } as never };
}

test('talking avatar with 60 s of audio (2,220 credits, catalogue 185): spends at most the cap plus that one run', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const items = [1, 2, 3].map((i) => ({ json: { prompt: `talk ${i}` }, binary: sixtySecondsOfAudio() }));
	const r = await generate(
		own.creds,
		{
			...params('video', 'orchid-avatar', {}, 500),
			additionalFields: { maxCredits: 500, audioProperty: 'voice' },
		},
		items,
		continueOnFail,
	);
	// Which of the three goes first depends on whose audio upload ends first; exactly one is sent.
	const outcomes = r.items.map((i) => i.json.cost ?? i.json.errorCode);
	expect([...outcomes].sort()).toEqual([2220, 'spending_cap', 'spending_cap']);
	for (const refused of r.items.filter((i) => i.json.errorCode === 'spending_cap'))
		expect(refused.json.error).toMatch(
			/^Max Credits per Execution \(500\) reached: 2220 credits are already spent by this step in this execution, and this run's price is not known in advance \(Orchid Avatar is a talking-avatar model/,
		);
	expect(backend.charges(own.id)).toBeLessThanOrEqual(500 + 2220);
	expect(backend.charges(own.id)).toBe(2220);
});

test('pause mode refuses a capped batch with a price it cannot know before pausing: nothing sent or charged', async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	const posts = backend.requests('POST /v1/generations').length;
	const r = await generate(
		own.creds,
		{ ...params('video', 'lumora-motion-3-fast', video8sSound, 300), waitMode: 'pause' },
		prompts(3, 'a fox'),
		{
			webhookWaitingBaseUrl: host.baseUrl,
		},
	);
	expect(r.error?.message).toMatch(
		/^Max Credits per Execution with Waiting → Pause: this run's price is not known in advance, so it cannot be counted before the pause \(item 1: this account has no earlier run of lumora-motion-3-fast/,
	);
	expect(r.error?.description).toMatch(/Choose Waiting → Poll/);
	expect(backend.requests('POST /v1/generations').length).toBe(posts);
	expect(backend.charges(own.id) + 0).toBe(0); // + 0: an empty ledger sums to -0
});

test("pause mode plans known prices from the account's history: never past the cap", async () => {
	const own = ownAccount(backend.sandbox, { credits: 100_000 });
	await generate(own.creds, params('video', 'lumora-motion-3-fast', video8sSound), prompts(1, 'seed'));
	const r = await generate(
		own.creds,
		{ ...params('video', 'lumora-motion-3-fast', video8sSound, 400), waitMode: 'pause' },
		prompts(3, 'a fox'),
		{ webhookWaitingBaseUrl: host.baseUrl, ...continueOnFail },
	);
	expect(r.run.status).toBe('waiting');
	host.hold(r, own.creds);
	const resumed = await host.resumed(r.executionId);
	expect(resumed.items.map((i) => i.json.status ?? 'refused')).toEqual(['SUCCEEDED', 'SUCCEEDED', 'refused']);
	expect(resumed.items[2].json.error).toBe(
		'Max Credits per Execution (400) reached: this run would cost 180 credits and 360 credits are already planned ' +
			'by this step in this execution',
	);
	expect(backend.charges(own.id)).toBe(180 * 3);
});
