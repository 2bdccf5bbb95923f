/**
 * The chip card's QR code (ZXing-C++ as WebAssembly, npm zxing-wasm; its .wasm read from node_modules, never
 * fetched). The code sits top-right on the upright chip front: that corner of the card is warped again from the
 * photo at several pixels per card pixel, so a module of the code is a few pixels wide, and handed to ZXing
 * as it is, and contrast-stretched and thresholded; the whole photo is the last try when the card was read
 * without its outline.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';
import { loadOpenCv, type Point } from '../../platform/vision/card-outline.js';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../layouts.js';

let prepared = false;

/** ZXing's module, its WebAssembly binary read from the installed package (by default the package fetches it from a CDN). */
function prepareZxing(): void {
  if (prepared) return;
  const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
  prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer } });
  prepared = true;
}

/**
 * The upright chip front's corner that holds the QR code (printed about x 820-970, y 25-190 of 1000x630), reaching
 * past the card's edges: an outline found a little inside the card must not cut the code.
 */
const QR_CORNER: Box = { x: 620, y: -60, w: CARD_WIDTH + 60 - 620, h: 420 };
/** Pixels per flat-card pixel of the corner's warp: a 140 px code becomes about 560 px, 10 px per module at 57 modules. */
const CORNER_SCALE = 4;

const OPTIONS: ReaderOptions = { formats: ['QRCode'], tryHarder: true, tryRotate: true, tryInvert: false, tryDownscale: true, maxNumberOfSymbols: 1 };

interface Gray {
  data: Uint8Array;
  width: number;
  height: number;
}

/** One gray image through ZXing with one binariser: the code's text, or undefined. */
async function decodeGray(img: Gray, binarizer: NonNullable<ReaderOptions['binarizer']>, options: Partial<ReaderOptions> = {}): Promise<string | undefined> {
  prepareZxing();
  const rgba = new Uint8ClampedArray(img.width * img.height * 4);
  for (let i = 0, j = 0; i < img.data.length; i++, j += 4) {
    rgba[j] = rgba[j + 1] = rgba[j + 2] = img.data[i];
    rgba[j + 3] = 255;
  }
  const found = await readBarcodes({ data: rgba, width: img.width, height: img.height, colorSpace: 'srgb' } as ImageData, { ...OPTIONS, ...options, binarizer });
  const hit = found.find((r) => r.isValid && r.text.length > 0);
  return hit?.text;
}

/**
 * The QR corner of the card, warped from the photo at CORNER_SCALE. `turned`: the card was read turned by 180
 * degrees, so its top-right corner lies at the corners' bottom-left.
 */
async function warpCorner(image: Gray, corners: readonly Point[], turned: boolean, corner: Box = QR_CORNER, scale = CORNER_SCALE): Promise<Gray> {
  const cv = await loadOpenCv();
  const box = turned ? { x: CARD_WIDTH - corner.x - corner.w, y: CARD_HEIGHT - corner.y - corner.h, w: corner.w, h: corner.h } : corner;
  const width = Math.round(box.w * scale);
  const height = Math.round(box.h * scale);
  const src = cv.matFromArray(image.height, image.width, cv.CV_8UC1, image.data);
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, CARD_WIDTH, 0, CARD_WIDTH, CARD_HEIGHT, 0, CARD_HEIGHT]);
  const to = cv.matFromArray(
    4,
    1,
    cv.CV_32FC2,
    corners.flatMap((p) => [p.x, p.y]),
  );
  const cardToImage = cv.getPerspectiveTransform(from, to);
  // The corner box's own corners in the photo, then the photo's quadrilateral onto the enlarged box.
  const h = cardToImage.data64F as Float64Array;
  const project = (x: number, y: number) => {
    const w = h[6] * x + h[7] * y + h[8];
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
  };
  const quad = cv.matFromArray(4, 1, cv.CV_32FC2, [
    ...project(box.x, box.y),
    ...project(box.x + box.w, box.y),
    ...project(box.x + box.w, box.y + box.h),
    ...project(box.x, box.y + box.h),
  ]);
  const rect = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, width, 0, width, height, 0, height]);
  const m = cv.getPerspectiveTransform(quad, rect);
  const dst = new cv.Mat();
  try {
    cv.warpPerspective(src, dst, m, new cv.Size(width, height), cv.INTER_CUBIC, cv.BORDER_REPLICATE);
    return { data: new Uint8Array(dst.data), width, height };
  } finally {
    for (const mat of [src, from, to, cardToImage, quad, rect, m, dst]) mat.delete();
  }
}

/** The image with its 2nd-98th percentile range stretched to black-white (a faded or glared code). */
export function stretchContrast(img: Gray): Gray {
  const hist = new Uint32Array(256);
  for (const v of img.data) hist[v]++;
  const at = (share: number) => {
    let n = 0;
    for (let v = 0; v < 256; v++) if ((n += hist[v]) >= share * img.data.length) return v;
    return 255;
  };
  const lo = at(0.02);
  const hi = Math.max(lo + 1, at(0.98));
  const data = new Uint8Array(img.data.length);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(((img.data[i] - lo) * 255) / (hi - lo))));
  return { ...img, data };
}

/** Thresholded against the mean of a window about two modules wide (uneven light across the code). */
export async function adaptiveThreshold(img: Gray, window: number): Promise<Gray> {
  const cv = await loadOpenCv();
  const src = cv.matFromArray(img.height, img.width, cv.CV_8UC1, img.data);
  const dst = new cv.Mat();
  try {
    cv.adaptiveThreshold(src, dst, 255, cv.ADAPTIVE_THRESH_MEAN_C, cv.THRESH_BINARY, window | 1, 8);
    return { data: new Uint8Array(dst.data), width: img.width, height: img.height };
  } finally {
    src.delete();
    dst.delete();
  }
}

/**
 * The corner boxes, each warped at 4 pixels per card pixel with cubic interpolation (at 3, or with linear
 * interpolation, 3 or 4 of the 16 codes read on the development set's 22 chip fronts were lost). The tight box is
 * the cheap first try (14 of them); the wide one, reaching past the card's edges, reads the codes of outlines found
 * a little inside the card (2 more). Two other boxes read none that these miss; the wide box thresholded is kept
 * as the one try for light uneven across the code, though on those 22 it read none the plain boxes missed either.
 */
const TIGHT_CORNER: Box = { x: 780, y: 0, w: 220, h: 230 };

/** The code is upright in the warped corner: ZXing need not try it turned (a fifth less CPU, the same codes read). */
const CORNER_OPTIONS: Partial<ReaderOptions> = { tryRotate: false };

/**
 * The text of the card's QR code, or undefined when none is read. `corners`: the card in the photo (clockwise
 * from the card's top-left as warped); `turned`: the card was read turned by 180 degrees. The tight corner box
 * first, then the wide one as warped and thresholded against its neighbourhood (uneven light across the code);
 * the whole photo last when `wholePhoto` (the card was read without its outline, so the boxes may miss the code).
 */
export async function readCardQr(photo: Gray, corners: readonly Point[], turned: boolean, wholePhoto = true): Promise<string | undefined> {
  const tight = await decodeGray(await warpCorner(photo, corners, turned, TIGHT_CORNER, CORNER_SCALE), 'LocalAverage', CORNER_OPTIONS);
  if (tight) return tight;
  const wide = await warpCorner(photo, corners, turned, QR_CORNER, CORNER_SCALE);
  const text =
    (await decodeGray(wide, 'LocalAverage', CORNER_OPTIONS)) ??
    (await decodeGray(await adaptiveThreshold(stretchContrast(wide), Math.round(CORNER_SCALE * 12)), 'BoolCast', CORNER_OPTIONS));
  if (text || !wholePhoto) return text;
  return decodeGray(photo, 'LocalAverage');
}
