/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Unit tests of the sandbox's price formula and audio length estimate.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { audioSecondsFromBytes, priceOf } from '../../sandbox/pricing';
import type { Model, Options } from '../../sandbox/types';

const models = (
	JSON.parse(readFileSync(path.join(__dirname, '../../sandbox/data/models.json'), 'utf8')) as { models: Model[] }
).models;
const model = (id: string) => {
	const found = models.find((m) => m.id === id);
	if (!found) throw new Error(`no model ${id} in the catalogue`);
	return found;
};
const at = (m: Model, changes: Partial<Options> = {}): Options => ({ ...m.defaults, ...changes });

describe('priceOf', () => {
	test('at its defaults every model costs credits_at_defaults', () => {
		for (const m of models) expect(priceOf(m, at(m))).toBe(m.credits_at_defaults);
	});

	test('each resolution step above the default multiplies by 1.5, each step below divides', () => {
		const lumora = model('lumora-image-2'); // 25 credits at 2K
		expect(priceOf(lumora, at(lumora, { resolution: '4K' }))).toBe(38); // 37.5 rounded
		expect(priceOf(lumora, at(lumora, { resolution: '1K' }))).toBe(17); // 16.67 rounded
	});

	test('video is priced per second against the default length; images ignore duration', () => {
		const story = model('nimbus-story'); // 210 credits for 10 s
		expect(priceOf(story, at(story, { duration: 15 }))).toBe(315);
		expect(priceOf(story, at(story, { duration: 6 }))).toBe(126);
		const image = model('studio-image-v1');
		expect(priceOf(image, at(image, { duration: 10 }))).toBe(image.credits_at_defaults);
	});

	test('audio on costs 1.25 times audio off, whichever is the default', () => {
		const withAudio = model('lumora-motion-3'); // 300, audio on by default
		expect(priceOf(withAudio, at(withAudio, { audio: false }))).toBe(240);
		const silent = model('nimbus-story'); // 210, audio off by default
		expect(priceOf(silent, at(silent, { audio: true }))).toBe(263); // 262.5 rounded
	});

	test('music is flat per run', () => {
		const song = model('cadence-song-v1');
		expect(priceOf(song, at(song, { tier: 'Lyrics' }))).toBe(60);
	});

	test('a talking avatar is priced on its audio, rounded up to whole seconds, at least 1', () => {
		const avatar = model('orchid-avatar'); // 185 for the default 5 s
		expect(priceOf(avatar, at(avatar), 9.2)).toBe(370);
		expect(priceOf(avatar, at(avatar), 0.1)).toBe(37);
	});

	test('never below 1 credit', () => {
		const cheap = { ...model('studio-image-v1'), credits_at_defaults: 1, defaults: { resolution: '2K' } };
		expect(priceOf(cheap, { resolution: '1K' })).toBe(1);
	});
});

describe('audioSecondsFromBytes', () => {
	test('MP3 at 128 kbit/s, WAV at 16-bit 44.1 kHz stereo', () => {
		expect(audioSecondsFromBytes('audio/mpeg', 160_000)).toBe(10);
		expect(audioSecondsFromBytes('audio/wav', 44_100 * 4 * 3)).toBe(3);
	});
});
