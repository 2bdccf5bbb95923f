/**
 * Stage 1: decode and validate with sharp. Not an image -> 7; an image whose
 * bytes are corrupt, truncated or in a format we cannot decode -> 8. EXIF
 * orientation is applied; a pixel limit refuses decompression bombs.
 */
import sharp from 'sharp';
import { ReaderFailure } from './failure.js';

export interface DecodedImage {
  /** RGB, row-major, 3 bytes per pixel, after EXIF rotation. */
  rgb: Buffer;
  gray: Buffer;
  width: number;
  height: number;
}

/** Magic numbers of the image formats people send; anything else is "not an image". */
export function looksLikeImage(buf: Buffer): boolean {
  if (buf.length < 12) return false;
  const hex = buf.subarray(0, 12).toString('hex');
  const ascii = buf.subarray(0, 12).toString('latin1');
  return (
    hex.startsWith('ffd8ff') || // JPEG
    hex.startsWith('89504e47') || // PNG
    ascii.startsWith('GIF8') ||
    (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') ||
    hex.startsWith('49492a00') || // TIFF little-endian
    hex.startsWith('4d4d002a') || // TIFF big-endian
    ascii.startsWith('BM') || // BMP
    ascii.slice(4, 8) === 'ftyp' || // HEIC, AVIF
    hex.startsWith('0000000c6a502020') // JPEG 2000
  );
}

export async function decodeImage(buf: Buffer, maxPixels: number): Promise<DecodedImage> {
  if (!looksLikeImage(buf)) throw new ReaderFailure(7, 'The uploaded file is not an image');
  try {
    const { data, info } = await sharp(buf, { failOn: 'truncated', limitInputPixels: maxPixels })
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
    const gray = Buffer.alloc(info.width * info.height);
    for (let i = 0, j = 0; i < gray.length; i++, j += 3) gray[i] = (data[j] * 77 + data[j + 1] * 150 + data[j + 2] * 29) >> 8;
    return { rgb: data, gray, width: info.width, height: info.height };
  } catch (err) {
    const message = (err as Error).message ?? '';
    if (/pixel limit/i.test(message)) throw new ReaderFailure(8, `The image has more than ${maxPixels} pixels`);
    throw new ReaderFailure(8, 'The image file is corrupted or its format is unsupported');
  }
}
