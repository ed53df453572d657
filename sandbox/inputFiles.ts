// Checks of a request's files: reference images and the end frame must be uploaded images or public https
// URLs; driving audio must be an uploaded audio file, whose length then prices the run.
import { audioSecondsFromBytes } from './pricing';
import type { Upload } from './types';
import type { GenerationRequest } from './validate';

export interface InputFileCheck {
	issues: string[];
	/** Length of the driving audio, when the request has one. */
	audioSeconds?: number;
}

/** `receivedUploadAt` finds a received upload by its file URL (undefined for other URLs). */
export function checkInputFiles(
	req: GenerationRequest,
	rootUrl: string,
	receivedUploadAt: (url: string) => Upload | undefined,
): InputFileCheck {
	const issues: string[] = [];
	const images = [...(req.imageUrls ?? []), ...(req.endImageUrl ? [req.endImageUrl] : [])];
	// The end frame is counted on after the reference images, under the imageUrls name.
	for (const [i, url] of images.entries()) {
		const isOurs = url.startsWith(rootUrl);
		const upload = isOurs ? receivedUploadAt(url) : undefined;
		if (isOurs && (!upload || !upload.mime.startsWith('image/'))) {
			issues.push(`imageUrls[${i}] is not an uploaded image (PNG, JPEG or WebP)`);
		} else if (!isOurs && !url.startsWith('https://')) {
			issues.push(`imageUrls[${i}] must be an upload URL or a public https image`);
		}
	}
	if (req.audioUrl === undefined) return { issues };
	const audio = receivedUploadAt(req.audioUrl);
	if (!audio || !audio.mime.startsWith('audio/')) {
		issues.push('audioUrl must be an audio file uploaded through POST /uploads first');
		return { issues };
	}
	return { issues, audioSeconds: audioSecondsFromBytes(audio.mime, audio.bytes) };
}
