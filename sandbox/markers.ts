// Markers that script a run for tests and demos: words and file contents that moderation refuses, and
// prompt tags that make a run fail, fail only the first time, or never finish.
import type { Run } from './types';

/** A prompt with this word is refused by moderation. */
export const MODERATION_WORD = /\bforbidden\b/i;
/** An uploaded image whose bytes contain this text is refused by moderation. */
export const MODERATION_MARKER = 'MODERATE-ME';
const FAIL_MARKER = '[fail]';
/** Fails the first run with this exact prompt for an owner, succeeds afterwards (a flaky upstream). */
const FAIL_FIRST_MARKER = '[fail-first]';
/** The run never finishes by itself; the spec's 30-minute limit fails and refunds it. */
const STUCK_MARKER = '[stuck]';

/** How a run will end, from the tags in its prompt; `promptUsedBefore`: whether the owner already ran it. */
export function plannedOutcome(prompt: string, promptUsedBefore: () => boolean): Run['outcome'] {
	if (prompt.includes(STUCK_MARKER)) return 'stuck';
	if (prompt.includes(FAIL_MARKER)) return 'fail';
	if (prompt.includes(FAIL_FIRST_MARKER) && !promptUsedBefore()) return 'fail';
	return 'succeed';
}
