// nodes/shared/downloads.ts: where a run's covers go beside its files.
import { coverPrefix } from '../../../../nodes/shared/downloads';

describe('covers', () => {
	test('covers move aside only when the files take their names', () => {
		expect(coverPrefix('data', 2)).toBe('cover');
		expect(coverPrefix('cover', 2)).toBe('cover_cover');
		expect(coverPrefix('cover', 1)).toBe('cover_cover');
	});
});
