/**
 * The image measurements behind the fraud check's `checking_result`
 * (docs/reader.md): colour on the card (a black-and-white photocopy has none)
 * and periodic interference in the card's fine detail (a card photographed
 * off a screen carries the screen's pixel grid or its moiré). Run in the
 * reader's worker on the working image of the quality check.
 */
import { powerSpectrum2d } from '../platform/vision/fft.js';
import type { Point } from '../platform/vision/card-outline.js';
import { ReaderFailure } from './pipeline/failure.js';
import { workingImage, type QualityTask } from './quality-check.js';

export interface FraudMeasures {
  /** Whether the outline finder located the card (else the whole photo was measured). */
  cardFound: boolean;
  /** Chroma (max - min channel, 0-255) of the card's most colourful 5% over its median: 0 for a grey copy, whatever its tint. */
  colourSpread: number;
  /** log10 of the most isolated spectral peak over its neighbours (patchMoire), median over patches of the card (0: no patch). */
  moire: number;
}

export type FraudMeasureOutcome = { ok: true; measures: FraudMeasures } | { ok: false; code: 7 | 8; message: string };

/**
 * Colour of the card: the 95th percentile of chroma minus its median. A
 * photocopy photographed under a warm or cold light is tinted evenly (its
 * median and its top move together); a card's red title, emblem and face
 * stand out of its pale background.
 */
export function colourSpread(rgb: Uint8Array, width: number, height: number, mask?: Uint8Array): number {
  const hist = new Uint32Array(256);
  let n = 0;
  for (let i = 0, j = 0; i < width * height; i++, j += 3) {
    if (mask && !mask[i]) continue;
    const r = rgb[j];
    const g = rgb[j + 1];
    const b = rgb[j + 2];
    hist[Math.max(r, g, b) - Math.min(r, g, b)]++;
    n++;
  }
  if (n === 0) return 0;
  const at = (q: number) => {
    let seen = 0;
    for (let c = 0; c < 256; c++) {
      seen += hist[c];
      if (seen >= q * n) return c;
    }
    return 255;
  };
  return at(0.95) - at(0.5);
}

const PATCH = 128;
/** The band searched for a screen's pattern, in cycles per pixel (text and card edges live below it). */
const BAND = [0.12, 0.5] as const;
/** Bins this close to an axis are left out: a card's straight lines and text rows put their energy there. */
const AXIS_GAP = 3;

/**
 * The most isolated peak in the band, of one Hann-windowed patch: log10 of a
 * bin's power over the median of its ring of neighbours two to three bins
 * away. Text and card patterns spread their energy over ridges of similar
 * bins; a screen's pixel grid or moiré puts it in a bin or two.
 */
export function patchMoire(gray: Float64Array): number {
  const n = PATCH;
  let mean = 0;
  for (let i = 0; i < gray.length; i++) mean += gray[i];
  mean /= gray.length;
  const windowed = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * y) / (n - 1));
    for (let x = 0; x < n; x++) windowed[y * n + x] = (gray[y * n + x] - mean) * wy * (0.5 - 0.5 * Math.cos((2 * Math.PI * x) / (n - 1)));
  }
  const power = powerSpectrum2d(windowed, n);
  const at = (u: number, fy: number) => power[((fy + n) % n) * n + ((u + n) % n)];
  const ring: number[] = [];
  let best = 0;
  for (let fy = -n / 2 + 3; fy < n / 2 - 3; fy++) {
    for (let u = AXIS_GAP; u < n / 2 - 3; u++) {
      if (Math.abs(fy) < AXIS_GAP) continue;
      const r = Math.hypot(u, fy) / n;
      if (r < BAND[0] || r > BAND[1]) continue;
      const p = at(u, fy);
      ring.length = 0;
      for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) if (Math.max(Math.abs(dx), Math.abs(dy)) >= 2) ring.push(at(u + dx, fy + dy));
      ring.sort((a, b) => a - b);
      const median = ring[ring.length >> 1];
      if (median > 0) best = Math.max(best, Math.log10(p / median));
    }
  }
  return best;
}

/** The card's native-resolution grey pixels sampled into patches at points inside it; the median patch score. */
export function cardMoire(gray: Uint8Array | Buffer, width: number, height: number, corners: readonly Point[] | null): number {
  // Patch centres at fixed places across the card (bilinear in its corners), or across the photo.
  const quad = corners ?? [
    { x: 0, y: 0 },
    { x: width - 1, y: 0 },
    { x: width - 1, y: height - 1 },
    { x: 0, y: height - 1 },
  ];
  const at = (s: number, t: number) => ({
    x: (1 - t) * ((1 - s) * quad[0].x + s * quad[1].x) + t * ((1 - s) * quad[3].x + s * quad[2].x),
    y: (1 - t) * ((1 - s) * quad[0].y + s * quad[1].y) + t * ((1 - s) * quad[3].y + s * quad[2].y),
  });
  const scores: number[] = [];
  for (const t of [0.3, 0.5, 0.7]) {
    for (const s of [0.3, 0.5, 0.7]) {
      const c = at(s, t);
      const x0 = Math.round(c.x - PATCH / 2);
      const y0 = Math.round(c.y - PATCH / 2);
      if (x0 < 0 || y0 < 0 || x0 + PATCH > width || y0 + PATCH > height) continue;
      const patch = new Float64Array(PATCH * PATCH);
      for (let y = 0; y < PATCH; y++) for (let x = 0; x < PATCH; x++) patch[y * PATCH + x] = gray[(y0 + y) * width + x0 + x];
      scores.push(patchMoire(patch));
    }
  }
  if (scores.length === 0) return 0;
  scores.sort((a, b) => a - b);
  return scores[scores.length >> 1];
}

/** The worker's part: decode, find the card, measure colour (working size) and moiré (native pixels). */
export async function measureFraudTask(task: QualityTask): Promise<FraudMeasureOutcome> {
  try {
    const work = await workingImage(task);
    const spread = colourSpread(work.rgb, work.width, work.height, work.mask);
    // The outline was found at the working size: its corners in native pixels.
    const k = work.image.width / work.width;
    const corners = work.card ? work.card.corners.map((p) => ({ x: p.x * k, y: p.y * k })) : null;
    const moire = cardMoire(work.image.gray, work.image.width, work.image.height, corners);
    return { ok: true, measures: { cardFound: work.card !== null, colourSpread: spread, moire } };
  } catch (err) {
    if (err instanceof ReaderFailure && (err.code === 7 || err.code === 8)) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
