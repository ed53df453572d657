// A pause-mode record (nodes/MediaGen/pause/pauseState.ts) as unit tests build it: `items` items, none sent yet.
import type { PauseState } from '../../nodes/MediaGen/pause/pauseState';

export const pauseStateOf = (items: number, lanes: number): PauseState => ({
	version: 1,
	lanes,
	deadline: 0,
	pausedAt: 0,
	continueOnFail: false,
	invalid: [],
	items: Array.from({ length: items }, (_, item) => ({ item, body: {}, download: true, binaryProperty: 'data' })),
});
