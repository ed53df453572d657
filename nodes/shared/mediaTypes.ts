// The media types the nodes read and write, with their families, labels and file extensions (pure).

/** The spec's megabyte (its size caps: images 10 MB, audio and video 50 MB), as the service counts it. */
export const MB = 1_000_000;

type MediaType = { family: 'image' | 'video' | 'audio'; label: string; ext: string; aliases: string[] };

/** Every media type the node reads or writes: its family, label, extension and other names for it. */
export const MEDIA_TYPES: Record<string, MediaType> = {
	'image/png': { family: 'image', label: 'PNG', ext: 'png', aliases: [] },
	'image/jpeg': { family: 'image', label: 'JPEG', ext: 'jpg', aliases: ['image/jpg', 'image/pjpeg', 'jpeg'] },
	'image/webp': { family: 'image', label: 'WebP', ext: 'webp', aliases: [] },
	'video/mp4': { family: 'video', label: 'MP4', ext: 'mp4', aliases: [] },
	'video/quicktime': { family: 'video', label: 'MOV', ext: 'mov', aliases: [] },
	'audio/mpeg': { family: 'audio', label: 'MP3', ext: 'mp3', aliases: ['audio/mp3', 'audio/mpeg3'] },
	'audio/wav': { family: 'audio', label: 'WAV', ext: 'wav', aliases: ['audio/x-wav', 'audio/wave', 'audio/vnd.wave'] },
	'audio/mp4': { family: 'audio', label: 'M4A', ext: 'm4a', aliases: ['audio/x-m4a', 'audio/m4a'] },
};

/** The canonical media type for a declared type or an alias of it ("image/jpg" → "image/jpeg"). */
export function canonicalMediaType(declared: string): string | undefined {
	const value = declared.split(';')[0].trim().toLowerCase();
	if (MEDIA_TYPES[value]) return value;
	return Object.keys(MEDIA_TYPES).find((type) => MEDIA_TYPES[type].aliases.includes(value));
}
