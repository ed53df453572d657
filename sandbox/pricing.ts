// Price formula (sandbox choice; the spec fixes only its inputs: model, resolution, length, audio).
//   price = round(credits_at_defaults × 1.5^(resolution step above the default)
//                 × (seconds / default seconds) × (audio on ? 1.25 : 1) / (default audio on ? 1.25 : 1))
// At the model's defaults every factor is 1, so the price is credits_at_defaults.
// Music is flat per run. A talking-avatar run is priced on the real length of its audio.
import type { Model, Options } from './types';

export function priceOf(model: Model, options: Options, audioSeconds?: number): number {
	if (model.kind === 'music') return model.credits_at_defaults;
	const resolutions = model.options.resolution;
	const step = resolutions.indexOf(options.resolution) - resolutions.indexOf(model.defaults.resolution);
	let price = model.credits_at_defaults * Math.pow(1.5, step);
	const defaultSeconds = model.defaults.duration ?? 5;
	const seconds =
		audioSeconds !== undefined ? Math.max(1, Math.ceil(audioSeconds)) : (options.duration ?? defaultSeconds);
	if (model.kind === 'video') price *= seconds / defaultSeconds;
	const audioOn = options.audio ?? model.defaults.audio ?? false;
	const defaultAudioOn = model.defaults.audio ?? false;
	price *= (audioOn ? 1.25 : 1) / (defaultAudioOn ? 1.25 : 1);
	return Math.max(1, Math.round(price));
}

/** Seconds of an MP3 or WAV from its size (sandbox approximation: 128 kbit/s MP3, 16-bit 44.1 kHz stereo WAV). */
export function audioSecondsFromBytes(mime: string, bytes: number): number {
	if (mime.includes('wav')) return bytes / (44_100 * 4);
	return bytes / 16_000;
}
