// The outputs a successful run lists: one image or video file, or two songs with covers, titles and lyrics.
import type { Run } from './types';

const IMAGE_EXTENSIONS: Record<string, string> = { PNG: 'png', JPG: 'jpg', WEBP: 'webp' };
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export function outputsFor(run: Run, rootUrl: string): Run['outputs'] {
	const base = `${rootUrl}/files/outputs/${run.id}`;
	if (run.kind === 'image') {
		const ext = IMAGE_EXTENSIONS[run.options.format ?? 'PNG'] ?? 'png';
		return [{ url: `${base}/0.${ext}`, mime: IMAGE_TYPES[ext] }];
	}
	if (run.kind === 'video') return [{ url: `${base}/0.mp4`, mime: 'video/mp4' }];
	const instrumental = run.options.tier === 'Instrumental';
	// Without a title, the prompt's first words, cut at a word boundary.
	const title = run.options.title ?? (run.prompt.slice(0, 40).replace(/\s+\S*$/, '') || 'Untitled');
	const lyrics = run.options.tier === 'Lyrics' ? run.prompt : `[Verse]\n${run.prompt}\n[Chorus]\nLa la la`;
	return [0, 1].map((n) => ({
		url: `${base}/${n}.mp3`,
		mime: 'audio/mpeg',
		cover: `${base}/${n}-cover.png`,
		title: n === 0 ? title : `${title} (take 2)`,
		...(instrumental ? {} : { lyrics }),
		seconds: 30 + n * 7,
	}));
}
