/**
 * The ID photo quality check (POST /vision/idr-qual/vnm, and `quality_check=1`
 * on /vision/idr/vnm and the fraud check), in the original guide's shape:
 * `bright_spots_score`, `blur_score`, `luminance_score` (0-100, two decimals
 * as strings), `resolution` and `final_result` with four likelihoods judged by
 * the guide's thresholds. Every score is a measurement on the card the
 * reader's outline finder locates (the whole photo when it finds none), at
 * the reader's 640-px working size; docs/reader.md says how each maps to 0-100.
 */
import sharp from 'sharp';
import { findCardOutline, type CardOutline, type Point } from '../platform/vision/card-outline.js';
import { decodeImage, type DecodedImage } from './pipeline/decode.js';
import { ReaderFailure } from './pipeline/failure.js';
import { QUALITY } from './pipeline/quality.js';

/** The guide's thresholds: a score at or past them is "likely". */
export const QUALITY_THRESHOLDS = {
  minWidth: 640,
  minHeight: 480,
  brightSpots: 85,
  blur: 82,
  luminanceLow: 42,
  luminanceHigh: 93,
} as const;

/** The working size: the reader's own quality gate measures sharpness at this long side. */
const WORK_SIDE = 640;
/** A pixel is blown out (glare) when every channel is at least this. */
const CLIPPED = 252;
/** Share of the card blown out at which bright_spots_score reaches the guide's 85. */
const GLARE_AT_85 = 0.02;
/** Laplacian variance at which blur_score reaches the guide's 82: the reader's own blur gate (code 3). */
const SHARPNESS_AT_82 = QUALITY.minSharpness;

export interface QualityMeasures {
  /** Size of the uploaded image (after EXIF rotation). */
  width: number;
  height: number;
  /** Whether the card outline was found (else the whole photo was measured). */
  cardFound: boolean;
  /** Share (0-1) of the card's pixels blown out to white in blobs (glare). */
  glare: number;
  /** Variance of the 4-neighbour Laplacian over the card at the working size. */
  sharpness: number;
  /** Mean luma (0-255) over the card. */
  luminance: number;
}

export type Likelihood = 'likely' | 'unlikely';

export interface QualityResult {
  bright_spots_score: string;
  blur_score: string;
  luminance_score: string;
  resolution: string;
  final_result: {
    lowResolutionLikelihood: Likelihood;
    havingBrightSpotsLikelihood: Likelihood;
    blurredLikelihood: Likelihood;
    /** Spelled as the guide spells it. */
    badLumimanceLikelihood: Likelihood;
  };
}

/** A ratio x / (x + k) scaled to 0-100, with k chosen so that `at` maps to `score`. */
function saturating(x: number, at: number, score: number): number {
  const k = (at * (100 - score)) / score;
  return (100 * x) / (x + k);
}

export function brightSpotsScore(glare: number): number {
  return saturating(Math.max(0, glare), GLARE_AT_85, QUALITY_THRESHOLDS.brightSpots);
}

/** High when blurred: k / (k + sharpness), 82 at the reader's blur gate. */
export function blurScore(sharpness: number): number {
  return 100 - saturating(Math.max(0, sharpness), SHARPNESS_AT_82, 100 - QUALITY_THRESHOLDS.blur);
}

export function luminanceScore(luminance: number): number {
  return (100 * Math.min(255, Math.max(0, luminance))) / 255;
}

const fmt = (x: number) => (Math.round(x * 100) / 100).toFixed(2);

/** The guide's quality item from the measurements. */
export function qualityResult(m: QualityMeasures): QualityResult {
  const bright = brightSpotsScore(m.glare);
  const blur = blurScore(m.sharpness);
  const lum = luminanceScore(m.luminance);
  const likely = (yes: boolean): Likelihood => (yes ? 'likely' : 'unlikely');
  const long = Math.max(m.width, m.height);
  const short = Math.min(m.width, m.height);
  return {
    bright_spots_score: fmt(bright),
    blur_score: fmt(blur),
    luminance_score: fmt(lum),
    resolution: `${m.width}x${m.height}`,
    final_result: {
      // Either orientation: a portrait photo of a card is as sharp as a landscape one.
      lowResolutionLikelihood: likely(long < QUALITY_THRESHOLDS.minWidth || short < QUALITY_THRESHOLDS.minHeight),
      havingBrightSpotsLikelihood: likely(bright >= QUALITY_THRESHOLDS.brightSpots),
      blurredLikelihood: likely(blur >= QUALITY_THRESHOLDS.blur),
      badLumimanceLikelihood: likely(!(lum > QUALITY_THRESHOLDS.luminanceLow && lum < QUALITY_THRESHOLDS.luminanceHigh)),
    },
  };
}

/** Whether every criterion is "unlikely" (the guide: only then does OCR or the fraud check follow). */
export function qualityPassed(q: QualityResult): boolean {
  return Object.values(q.final_result).every((v) => v === 'unlikely');
}

/** Pixels inside the convex quadrilateral (corners in order), as a 0/1 mask. */
export function quadMask(corners: readonly Point[], width: number, height: number): Uint8Array {
  const mask = new Uint8Array(width * height);
  const n = corners.length;
  // The sign of the turn tells the winding; a point is inside when it is on the inner side of every edge.
  let area = 0;
  for (let i = 0; i < n; i++) {
    const a = corners[i];
    const b = corners[(i + 1) % n];
    area += a.x * b.y - b.x * a.y;
  }
  const sign = area >= 0 ? 1 : -1;
  const xs = corners.map((p) => p.x);
  const ys = corners.map((p) => p.y);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(height - 1, Math.ceil(Math.max(...ys)));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      let inside = true;
      for (let i = 0; i < n && inside; i++) {
        const a = corners[i];
        const b = corners[(i + 1) % n];
        if (sign * ((b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)) < 0) inside = false;
      }
      if (inside) mask[y * width + x] = 1;
    }
  }
  return mask;
}

/**
 * Glare: blown-out pixels in blobs (each pixel's four neighbours blown out
 * too: not a lone highlight) that do not reach the edge of the frame or of
 * the card: a white background or margin around a card is blown out and
 * touches the edge; a lamp's reflection on the card is surrounded by card.
 */
export function glareSpots(clipped: Uint8Array, width: number, height: number, mask?: Uint8Array): Uint8Array {
  const core = new Uint8Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (clipped[i] && clipped[i - 1] && clipped[i + 1] && clipped[i - width] && clipped[i + width]) core[i] = 1;
    }
  }
  const out = new Uint8Array(width * height);
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  const blob: number[] = [];
  for (let start = 0; start < core.length; start++) {
    if (!core[start] || seen[start]) continue;
    blob.length = 0;
    let reachesEdge = false;
    seen[start] = 1;
    stack.push(start);
    while (stack.length > 0) {
      const i = stack.pop()!;
      blob.push(i);
      const x = i % width;
      const y = (i - x) / width;
      // The blob's own pixels are core pixels, so their neighbours are blown out: a neighbour off the frame or the card is the edge.
      for (const [nx, ny] of [
        [x - 1, y],
        [x + 1, y],
        [x, y - 1],
        [x, y + 1],
      ]) {
        if (nx <= 0 || ny <= 0 || nx >= width - 1 || ny >= height - 1) {
          reachesEdge = true;
          continue;
        }
        const j = ny * width + nx;
        if (mask && !mask[j]) reachesEdge = true;
        if (core[j] && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    if (!reachesEdge) for (const i of blob) out[i] = 1;
  }
  return out;
}

/**
 * The three measurements on an RGB image at the working size, over `mask`
 * (the card; every pixel when absent).
 */
export function measureRegion(rgb: Uint8Array, width: number, height: number, mask?: Uint8Array): Pick<QualityMeasures, 'glare' | 'sharpness' | 'luminance'> {
  const gray = new Float32Array(width * height);
  const clipped = new Uint8Array(width * height);
  for (let i = 0, j = 0; i < gray.length; i++, j += 3) {
    gray[i] = 0.299 * rgb[j] + 0.587 * rgb[j + 1] + 0.114 * rgb[j + 2];
    clipped[i] = rgb[j] >= CLIPPED && rgb[j + 1] >= CLIPPED && rgb[j + 2] >= CLIPPED ? 1 : 0;
  }
  const inside = (i: number) => !mask || mask[i] === 1;
  const spots = glareSpots(clipped, width, height, mask);
  let count = 0;
  let sum = 0;
  let glare = 0;
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!inside(i)) continue;
      count++;
      sum += gray[i];
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) continue;
      if (spots[i]) glare++;
      if (!(inside(i - 1) && inside(i + 1) && inside(i - width) && inside(i + width))) continue;
      const lap = gray[i - 1] + gray[i + 1] + gray[i - width] + gray[i + width] - 4 * gray[i];
      n++;
      const d = lap - mean;
      mean += d / n;
      m2 += d * (lap - mean);
    }
  }
  return { glare: count > 0 ? glare / count : 0, sharpness: n > 1 ? m2 / (n - 1) : 0, luminance: count > 0 ? sum / count : 0 };
}

export interface QualityTask {
  image: Uint8Array;
  maxPixels: number;
  minCardArea: number;
}

export type QualityOutcome = { ok: true; measures: QualityMeasures } | { ok: false; code: 7 | 8; message: string };

/** The photo decoded, at the working size, with the card the outline finder locates (null: none, the whole photo stands for it). */
export interface WorkingImage {
  image: DecodedImage;
  rgb: Buffer;
  width: number;
  height: number;
  card: CardOutline | null;
  /** The card's pixels at the working size (undefined: every pixel). */
  mask?: Uint8Array;
}

/** Decode (codes 7 and 8 as the reader), scale to the working size, find the card. */
export async function workingImage(task: QualityTask): Promise<WorkingImage> {
  const image = await decodeImage(Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength), task.maxPixels);
  const scale = Math.min(1, WORK_SIDE / Math.max(image.width, image.height));
  const w = Math.max(1, Math.round(image.width * scale));
  const h = Math.max(1, Math.round(image.height * scale));
  const rgb = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(w, h, { fit: 'fill' })
    .raw()
    .toBuffer();
  const gray = Buffer.alloc(w * h);
  for (let i = 0, j = 0; i < gray.length; i++, j += 3) gray[i] = (rgb[j] * 77 + rgb[j + 1] * 150 + rgb[j + 2] * 29) >> 8;
  const outline = await findCardOutline({ data: gray, width: w, height: h }, { minAreaRatio: Math.min(0.04, task.minCardArea) });
  const card = outline && outline.areaRatio >= task.minCardArea ? outline : null;
  return { image, rgb, width: w, height: h, card, mask: card ? quadMask(card.corners, w, h) : undefined };
}

/** The worker's part: the working image, measured. */
export async function measureQualityTask(task: QualityTask): Promise<QualityOutcome> {
  try {
    const work = await workingImage(task);
    const region = measureRegion(work.rgb, work.width, work.height, work.mask);
    return { ok: true, measures: { width: work.image.width, height: work.image.height, cardFound: work.card !== null, ...region } };
  } catch (err) {
    if (err instanceof ReaderFailure && (err.code === 7 || err.code === 8)) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
