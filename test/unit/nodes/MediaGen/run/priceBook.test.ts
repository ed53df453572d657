// nodes/MediaGen/run/priceBook.ts: every basis of a predicted price, and how options left at "Model Default"
// compare with options sent at the model's defaults.
import type { CatalogueModel, RunRecord } from '../../../../../nodes/shared/records';
import { describeBasis, isAtDefaults, PriceBook, priceOptions } from '../../../../../nodes/MediaGen/run/priceBook';
import { catalogue, catalogueModel as model } from '../../../../helpers/catalogue';

const fast = model('lumora-motion-3-fast'); // 90 credits at 720p, 5 s, no sound
const avatar = model('orchid-avatar'); // talking avatar, 185 at defaults
const song = model('cadence-song-v1');

const run = (id: string, modelId: string, options: Record<string, unknown>, cost: number): RunRecord =>
	({ id, model: modelId, options, cost, kind: 'video', prompt: 'p', status: 'SUCCEEDED' }) as unknown as RunRecord;
const book = (runs?: RunRecord[]) => new PriceBook(catalogue, { runs, note: 'looked through its newest runs' });
/** A request of `m` sending these options, with driving audio from `audioUrl` (as typed) when given. */
const request = (m: CatalogueModel, options: Record<string, unknown>, audioUrl?: string) => ({
	model: m,
	body: { options },
	...(audioUrl === undefined ? {} : { audio: { url: audioUrl, field: 'Driving Audio URL' } }),
});

describe('what counts as the default options', () => {
	test('options left at "Model Default" (not sent) equal the same options sent at their defaults', () => {
		expect(isAtDefaults(fast, {})).toBe(true);
		expect(isAtDefaults(fast, { resolution: '720p', duration: 5, audio: false })).toBe(true);
		expect(priceOptions(fast, {})).toEqual(priceOptions(fast, { resolution: '720p', duration: 5, audio: false }));
	});

	test('values typed as text compare equal to the numbers and yes/no of the catalogue', () => {
		expect(isAtDefaults(fast, { duration: '5', audio: 'false' })).toBe(true);
	});

	test('only resolution, length and sound set the price (the spec): another aspect ratio or format costs the same', () => {
		expect(isAtDefaults(fast, { aspect: '9:16' })).toBe(true);
		expect(isAtDefaults(model('lumora-image-2'), { format: 'JPG' })).toBe(true);
	});

	test('a longer clip, sound on or another resolution is not the default price', () => {
		expect(isAtDefaults(fast, { duration: 8 })).toBe(false);
		expect(isAtDefaults(fast, { audio: true })).toBe(false);
		expect(isAtDefaults(model('lumora-image-2'), { resolution: '4K' })).toBe(false);
	});

	test('music is one price a run in every mode', () => {
		expect(isAtDefaults(song, { tier: 'Lyrics', style: 'jazz', vocal: 'f' })).toBe(true);
	});
});

describe('the price book', () => {
	test('catalogue default: options at the defaults cost the catalogue price, whatever the history says', () => {
		const price = book([run('gen_old', fast.id, { resolution: '720p', duration: 5, audio: false }, 77)]).price(
			request(fast, {}),
		);
		expect(price).toEqual({ credits: 90, basis: 'catalogue default' });
		expect(describeBasis(price)).toBe('list price');
	});

	test("this account's earlier run: the newest run of the same model and price options gives the price", () => {
		const history = [
			run('gen_new', fast.id, { resolution: '720p', duration: 8, audio: true, aspect: '9:16' }, 180),
			run('gen_older', fast.id, { resolution: '720p', duration: 8, audio: true }, 170),
			run('gen_other', fast.id, { resolution: '720p', duration: 8, audio: false }, 144),
		];
		const price = book(history).price(request(fast, { duration: 8, audio: true }));
		expect(price).toEqual({ credits: 180, basis: 'earlier run', runId: 'gen_new' });
		expect(describeBasis(price)).toBe('what your last identical run cost (run gen_new)');
		expect(book(history).price(request(fast, { duration: 8 })).credits).toBe(144);
	});

	test('a free run (cost 0) in the history says nothing of the price', () => {
		const price = book([run('gen_free', fast.id, { duration: 8 }, 0)]).price(request(fast, { duration: 8 }));
		expect(price.credits).toBeNull();
	});

	test('unknown: no earlier run like it, and the reason says which options and how much history was read', () => {
		const price = book([]).price(request(fast, { duration: 8, audio: true }));
		expect(price.credits).toBeNull();
		expect(describeBasis(price)).toBe(
			'unknown: this account has no earlier run of lumora-motion-3-fast with resolution 720p, duration 8, ' +
				'audio true (looked through its newest runs)',
		);
	});

	test('unknown when the history was not read, with why', () => {
		const unread = new PriceBook(catalogue, { note: 'its run history could not be read: 500' });
		expect(unread.price(request(fast, { duration: 8 })).why).toMatch(/could not be read: 500/);
	});

	test('a run accepted in this execution prices the next one like it', () => {
		const b = book([]);
		b.learn(request(fast, { duration: 8 }), { id: 'gen_here', cost: 144 });
		expect(b.price(request(fast, { duration: 8, resolution: '720p' }))).toEqual({
			credits: 144,
			basis: 'earlier run',
			runId: 'gen_here',
		});
	});

	test('talking avatar: unknown, even at default options, since the audio length sets the price', () => {
		const b = book([run('gen_av', avatar.id, { resolution: '720p' }, 185)]);
		const price = b.price({ ...request(avatar, {}), audio: { file: {} as never, field: 'Driving Audio' } });
		expect(price.credits).toBeNull();
		expect(price.why).toMatch(/talking-avatar model, priced on the driving audio's real length/);
	});

	test('talking avatar: the same audio address sent again in this execution costs what it did', () => {
		const b = book([]);
		const url = 'https://files.example.com/voice.mp3';
		// Learnt from the body as sent (its audioUrl), priced from the address typed.
		b.learn({ ...request(avatar, {}, url), body: { options: {}, audioUrl: url } }, { id: 'gen_av', cost: 2220 });
		expect(b.price(request(avatar, {}, url)).credits).toBe(2220);
		expect(b.price(request(avatar, {}, `${url}?2`)).credits).toBeNull();
		const uploaded = { ...request(avatar, {}), audio: { file: {} as never, field: 'Driving Audio' } };
		expect(b.price(uploaded).credits).toBeNull();
	});
});
