/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Real, small media files made on the fly, so outputs open in ordinary tools:
// PNG (drawn and zlib-compressed), JPEG and WebP (tiny valid images), MP4 (ISO BMFF
// with ftyp/moov/mdat), MP3 (valid MPEG-1 Layer III frames). Any of them can be padded
// to a requested size and streamed, for memory benchmarks.
import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body) >>> 0);
	return Buffer.concat([len, body, crc]);
}

/** A PNG of width×height with a colour derived from the seed; `marker` is stored in a tEXt chunk. */
export function makePng(seed: string, width = 64, height = 64, marker = ''): Buffer {
	let h = 0;
	for (const c of seed) h = (h * 31 + c.charCodeAt(0)) >>> 0;
	const [r, g, b] = [h & 255, (h >> 8) & 255, (h >> 16) & 255];
	const row = Buffer.alloc(1 + width * 3);
	const rows: Buffer[] = [];
	for (let y = 0; y < height; y++) {
		row[0] = 0;
		for (let x = 0; x < width; x++) {
			row[1 + x * 3] = (r + x * 2) & 255;
			row[2 + x * 3] = (g + y * 2) & 255;
			row[3 + x * 3] = b;
		}
		rows.push(Buffer.from(row));
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8;
	ihdr[9] = 2;
	const parts = [
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('tEXt', Buffer.from(`Comment\0mediagen sandbox ${seed}${marker ? ' ' + marker : ''}`, 'latin1')),
		chunk('IDAT', deflateSync(Buffer.concat(rows))),
	];
	return Buffer.concat([...parts, chunk('IEND', Buffer.alloc(0))]);
}

// A 1×1 baseline JPEG and a 1×1 lossless WebP: valid files that image tools open.
const JPEG_1PX = Buffer.from(
	'/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJ' +
		'DRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=',
	'base64',
);
const WEBP_1PX = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

export function makeJpeg(): Buffer {
	return Buffer.from(JPEG_1PX);
}
export function makeWebp(): Buffer {
	return Buffer.from(WEBP_1PX);
}

function box(type: string, ...payload: Buffer[]): Buffer {
	const body = Buffer.concat(payload);
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + body.length);
	head.write(type, 4, 'ascii');
	return Buffer.concat([head, body]);
}

/** The head of an MP4 (ftyp + moov with a movie header of `seconds`); mdat follows. */
function mp4Head(seconds: number): Buffer {
	const ftyp = box('ftyp', Buffer.from('isom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2mp41'));
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(0, 0); // version + flags
	mvhd.writeUInt32BE(1000, 12); // timescale
	mvhd.writeUInt32BE(seconds * 1000, 16); // duration
	mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
	mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
	const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
	matrix.forEach((v, i) => mvhd.writeUInt32BE(v, 36 + i * 4));
	mvhd.writeUInt32BE(2, 96); // next track id
	return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd))]);
}

// MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no padding: 417-byte frames of 26 ms each.
const MP3_FRAME = (() => {
	const f = Buffer.alloc(417);
	f[0] = 0xff;
	f[1] = 0xfb;
	f[2] = 0x90;
	f[3] = 0x64;
	return f;
})();

function id3(title: string): Buffer {
	const frameBody = Buffer.concat([Buffer.from([3]), Buffer.from(title, 'utf8')]);
	const frameHead = Buffer.alloc(10);
	frameHead.write('TIT2', 0, 'ascii');
	frameHead.writeUInt32BE(frameBody.length, 4);
	const frames = Buffer.concat([frameHead, frameBody]);
	const head = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
	const size = frames.length;
	head[6] = (size >> 21) & 0x7f;
	head[7] = (size >> 14) & 0x7f;
	head[8] = (size >> 7) & 0x7f;
	head[9] = size & 0x7f;
	return Buffer.concat([head, frames]);
}

export interface MediaFile {
	mime: string;
	size: number;
	stream(): Readable;
}

function fromBuffer(mime: string, data: Buffer): MediaFile {
	return { mime, size: data.length, stream: () => Readable.from([data]) };
}

function padded(mime: string, head: Buffer, filler: Buffer, total: number, tail?: (len: number) => Buffer): MediaFile {
	const size = Math.max(total, head.length + (tail ? tail(0).length : 0));
	return {
		mime,
		size,
		stream: () =>
			Readable.from(
				(function* () {
					yield head;
					let left = size - head.length - (tail ? tail(0).length : 0);
					if (tail) yield tail(left);
					while (left > 0) {
						const n = Math.min(left, filler.length);
						yield n === filler.length ? filler : filler.subarray(0, n);
						left -= n;
					}
				})(),
			),
	};
}

const ZERO_64K = Buffer.alloc(65536);
const MP3_64K = Buffer.concat(Array.from({ length: 157 }, () => MP3_FRAME)); // whole frames only

export function imageFile(format: string, seed: string, minBytes = 0, marker = ''): MediaFile {
	const f = format.toUpperCase();
	if (f === 'JPG' || f === 'JPEG') return minBytes > 0 ? padJpeg(minBytes) : fromBuffer('image/jpeg', makeJpeg());
	if (f === 'WEBP') return fromBuffer('image/webp', makeWebp());
	const png = makePng(seed, 64, 64, marker);
	if (minBytes <= png.length) return fromBuffer('image/png', png);
	// Big PNG: a large ancillary chunk before IEND keeps the file valid.
	const withoutEnd = png.subarray(0, png.length - 12);
	const pad = minBytes - png.length - 12;
	const head = Buffer.concat([withoutEnd]);
	const padLen = Buffer.alloc(8);
	padLen.writeUInt32BE(Math.max(0, pad));
	padLen.write('zPAD', 4, 'ascii');
	const endParts = Buffer.concat([Buffer.from([0, 0, 0, 0]), chunk('IEND', Buffer.alloc(0))]);
	return {
		mime: 'image/png',
		size: head.length + 8 + Math.max(0, pad) + endParts.length,
		stream: () =>
			Readable.from(
				(function* () {
					yield head;
					yield padLen;
					let left = Math.max(0, pad);
					while (left > 0) {
						const n = Math.min(left, ZERO_64K.length);
						yield ZERO_64K.subarray(0, n);
						left -= n;
					}
					yield endParts; // CRC of the padding chunk is not checked by readers of ancillary chunks
				})(),
			),
	};
}

function padJpeg(minBytes: number): MediaFile {
	// A JPEG with a large COM segment series is still a valid JPEG.
	const jpeg = makeJpeg();
	const soi = jpeg.subarray(0, 2);
	const rest = jpeg.subarray(2);
	const segment = Buffer.alloc(65535 + 2);
	segment[0] = 0xff;
	segment[1] = 0xfe;
	segment.writeUInt16BE(65535, 2);
	const count = Math.max(1, Math.ceil((minBytes - jpeg.length) / segment.length));
	return {
		mime: 'image/jpeg',
		size: 2 + count * segment.length + rest.length,
		stream: () =>
			Readable.from(
				(function* () {
					yield soi;
					for (let i = 0; i < count; i++) yield segment;
					yield rest;
				})(),
			),
	};
}

export function videoFile(seconds: number, minBytes = 0): MediaFile {
	const head = mp4Head(seconds);
	const mdatSize = Math.max(minBytes - head.length, 4096);
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize);
	mdatHead.write('mdat', 4, 'ascii');
	return padded('video/mp4', Buffer.concat([head, mdatHead]), ZERO_64K, head.length + mdatSize);
}

export function audioFile(title: string, seconds: number, minBytes = 0): MediaFile {
	const head = id3(title);
	const frames = Math.ceil((seconds * 1000) / 26.12);
	const total = Math.max(head.length + frames * MP3_FRAME.length, minBytes);
	const wholeFrames = Math.floor((total - head.length) / MP3_FRAME.length);
	return padded('audio/mpeg', head, MP3_64K, head.length + wholeFrames * MP3_FRAME.length);
}

export const EXTENSIONS: Record<string, string> = {
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/webp': 'webp',
	'video/mp4': 'mp4',
	'video/quicktime': 'mov',
	'audio/mpeg': 'mp3',
	'audio/wav': 'wav',
	'audio/x-wav': 'wav',
	'audio/mp4': 'm4a',
	'audio/x-m4a': 'm4a',
};
