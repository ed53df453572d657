// nodes/MediaGen/catalogue/catalogue.ts: the model an empty Model field stands for (defaultModel), read from
// whatever the catalogue holds: the kind's cheapest house engine (free_tier), else its cheapest model.
import type { CatalogueModel } from '../../../../../nodes/shared/records';
import { defaultModel } from '../../../../../nodes/MediaGen/catalogue/catalogue';
import { catalogueModel as model } from '../../../../helpers/catalogue';

const priced = (id: string, credits: number, freeTier: boolean): CatalogueModel => ({
	...model(id),
	id: `${id}-copy`,
	credits_at_defaults: credits,
	free_tier: freeTier,
});

describe('defaultModel', () => {
	const models = [
		model('lumora-image-2'),
		model('studio-image-v1'),
		model('studio-video-v1'),
		model('cadence-song-v1'),
	];

	test("the kind's free house engine, even when a paid model costs less", () => {
		const cheapPaid = priced('lumora-image-2', 1, false);
		expect(defaultModel([cheapPaid, ...models], 'image')?.id).toBe('studio-image-v1');
		expect(defaultModel(models, 'video')?.id).toBe('studio-video-v1');
	});

	test('the cheaper of two free models; ties go to the one listed first', () => {
		const cheaperFree = priced('studio-image-v1', 2, true);
		expect(defaultModel([...models, cheaperFree], 'image')?.id).toBe('studio-image-v1-copy');
		const sameFree = priced('studio-image-v1', 5, true);
		expect(defaultModel([...models, sameFree], 'image')?.id).toBe('studio-image-v1');
	});

	test('a kind without a free model: its cheapest; a kind without models: none', () => {
		const dearSong = priced('cadence-song-v1', 90, false);
		expect(defaultModel([dearSong, ...models], 'music')?.id).toBe('cadence-song-v1');
		expect(defaultModel([model('studio-image-v1')], 'music')).toBeUndefined();
	});
});
