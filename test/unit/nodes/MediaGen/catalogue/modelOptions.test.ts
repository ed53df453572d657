// nodes/MediaGen/catalogue/modelOptions.ts: the options picked in the node resolved against the model's catalogue
// entry (blanks left out, text typed, what the model does not take named with what it does), and prompt limits.
import type { CatalogueModel } from '../../../../../nodes/shared/records';
import {
	acceptedNames,
	effectiveOptions,
	promptLimit,
	resolveOptions,
} from '../../../../../nodes/MediaGen/catalogue/modelOptions';
import { catalogueModel as model } from '../../../../helpers/catalogue';

const image = model('studio-image-v1');
const song = model('cadence-song-v1');

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

	test("what a model does with the options it is sent: the defaults fill the rest; music's mode", () => {
		expect(effectiveOptions(image, { format: 'WEBP', aspect: null })).toEqual({
			options: { ...image.defaults, format: 'WEBP' },
		});
		expect(effectiveOptions(song).musicMode).toBe(song.defaults.tier ?? 'Describe');
		expect(effectiveOptions(song, { tier: 'Lyrics' }).musicMode).toBe('Lyrics');
		expect(effectiveOptions({ ...song, defaults: { resolution: 'song' } }).musicMode).toBe('Describe');
	});

	test("the prompt limit is the mode's for music", () => {
		expect(promptLimit(song, { tier: 'Instrumental' })).toBe(1000);
		expect(promptLimit(song)).toBe(3000);
		expect(promptLimit(image)).toBe(2000);
	});
});
