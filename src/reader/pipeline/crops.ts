/** Cuts bands out of the flat card and stacks them into one image, so one OCR call reads many fields. */
import sharp from 'sharp';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../layouts.js';

export interface Stack {
  png: Buffer;
  /** Vertical extent of each band in the stacked image. */
  spans: { y0: number; y1: number; x0: number }[];
}

export const GAP = 14;
/** Fewest grey levels the contrast stretch maps to black..white. */
const MIN_RANGE = 96;

/**
 * Cuts `boxes` out of the flat card (gray, CARD_WIDTH wide), evens out each
 * band's background (unless `flatten` is false) and contrast, and stacks them.
 */
export async function stackBands(gray: Buffer, boxes: Box[], scale = 1, flatten = true): Promise<Stack> {
  // Every band at least 1x1 and on the card, whatever box a stage computed (an empty band is white).
  const clamp = (b: Box) => {
    const x = Math.min(CARD_WIDTH - 1, Math.max(0, Math.round(b.x)));
    const y = Math.min(CARD_HEIGHT - 1, Math.max(0, Math.round(b.y)));
    return { x, y, w: Math.max(1, Math.min(CARD_WIDTH - x, Math.round(b.w))), h: Math.max(1, Math.min(CARD_HEIGHT - y, Math.round(b.h))) };
  };
  const bands = boxes.map(clamp);
  const width = Math.max(...bands.map((b) => b.w)) + 2 * GAP;
  const height = bands.reduce((s, b) => s + b.h + GAP, GAP);
  const out = Buffer.alloc(width * height, 255);
  const spans: Stack['spans'] = [];
  let top = GAP;
  for (const b of bands) {
    const band = Buffer.alloc(b.w * b.h);
    for (let r = 0; r < b.h; r++) gray.copy(band, r * b.w, (b.y + r) * CARD_WIDTH + b.x, (b.y + r) * CARD_WIDTH + b.x + b.w);
    if (flatten) flattenBackground(band, b.w, b.h);
    // Stretch each band so its paper is white: Tesseract binarises the whole stack at once,
    // and a grey band next to white gaps would otherwise turn black.
    const hist = new Array<number>(256).fill(0);
    for (let i = 0; i < band.length; i++) hist[band[i]]++;
    const total = b.w * b.h;
    const pct = (q: number) => {
      let acc = 0;
      for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * total) return v;
      return 255;
    };
    const hi = Math.max(16, pct(0.6));
    // At least MIN_RANGE grey levels between ink and paper: a band with no text (a continuation line left empty)
    // would otherwise have its faint guilloche stretched to black waves, which Tesseract reads as words.
    const lo = Math.min(pct(0.01), hi - MIN_RANGE);
    const lut = Buffer.alloc(256);
    for (let v = 0; v < 256; v++) lut[v] = Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / (hi - lo))));
    for (let r = 0; r < b.h; r++) {
      const dst = (top + r) * width + GAP;
      for (let c = 0; c < b.w; c++) out[dst + c] = lut[band[r * b.w + c]];
    }
    spans.push({ y0: top * scale, y1: (top + b.h) * scale, x0: GAP * scale });
    top += b.h + GAP;
  }
  let img = sharp(out, { raw: { width, height, channels: 1 } });
  if (scale !== 1) img = img.resize(Math.round(width * scale), Math.round(height * scale));
  return { png: await img.png({ compressionLevel: 1 }).toBuffer(), spans };
}

/**
 * Moves each band up or down (at most `maxShift` px) onto the text it should
 * hold: the located outline can be a few pixels off, and a band that cuts
 * through a line of text loses it. The band goes where it holds the most ink
 * while leaving its top and bottom edges clear.
 */
export function alignBands(gray: Buffer, boxes: Box[], maxShift = 10): Box[] {
  return boxes.map((b) => {
    const x0 = Math.max(0, Math.round(b.x));
    const x1 = Math.min(CARD_WIDTH, Math.round(b.x + b.w));
    const y0 = Math.max(0, Math.round(b.y) - maxShift);
    const y1 = Math.min(CARD_HEIGHT, Math.round(b.y + b.h) + maxShift);
    if (x1 - x0 < 4 || y1 - y0 < 4) return b;
    // Ink threshold from the window's own histogram.
    const hist = new Array<number>(256).fill(0);
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) hist[gray[y * CARD_WIDTH + x]]++;
    const total = (x1 - x0) * (y1 - y0);
    const pct = (q: number) => {
      let acc = 0;
      for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * total) return v;
      return 255;
    };
    const paper = pct(0.6);
    const ink = pct(0.02);
    if (paper - ink < 40) return b;
    const cut = (paper + ink) / 2;
    const rows: number[] = [];
    for (let y = y0; y < y1; y++) {
      let n = 0;
      for (let x = x0; x < x1; x++) if (gray[y * CARD_WIDTH + x] < cut) n++;
      rows.push(n);
    }
    const h = Math.round(b.h);
    let best = 0;
    let bestScore = -Infinity;
    for (let d = -maxShift; d <= maxShift; d++) {
      const top = Math.round(b.y) + d - y0;
      if (top < 0 || top + h > rows.length) continue;
      let inside = 0;
      for (let r = top; r < top + h; r++) inside += rows[r];
      // Ink on the band's edges means a line is cut: penalise it.
      const edges = rows[top] + rows[Math.min(rows.length - 1, top + h - 1)];
      const score = inside - 3 * edges - Math.abs(d) * 0.5;
      if (score > bestScore) {
        bestScore = score;
        best = d;
      }
    }
    return { ...b, y: b.y + best };
  });
}

/** Background estimate window: wider than any stroke (bold 32 px digits: ~6 px), narrower than a letter gap pattern. */
const BACKGROUND_WINDOW = 17;

/** Running max (or min) over `k` samples of a strided 1-D signal, centred (van Herk / Gil-Werman: O(1) per sample). */
function runningExtreme(src: Uint8Array, dst: Uint8Array, start: number, stride: number, n: number, k: number, max: boolean, g: Uint8Array, h: Uint8Array): void {
  const pick = max ? (a: number, b: number) => (a > b ? a : b) : (a: number, b: number) => (a < b ? a : b);
  const r = k >> 1;
  for (let i = 0; i < n; i++) {
    const v = src[start + i * stride];
    g[i] = i % k === 0 ? v : pick(g[i - 1], v);
  }
  for (let i = n - 1; i >= 0; i--) {
    const v = src[start + i * stride];
    h[i] = i === n - 1 || (i + 1) % k === 0 ? v : pick(h[i + 1], v);
  }
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - r);
    const hi = Math.min(n - 1, i + r);
    dst[start + i * stride] = pick(h[lo], g[hi]);
  }
}

/**
 * Divides a band by its background (a grayscale closing: max then min filter,
 * wider than the strokes), so text on a dark or uneven part of the card comes
 * out black on white, whatever the lighting, guilloche tint or shadow.
 */
export function flattenBackground(band: Buffer, w: number, h: number, k = BACKGROUND_WINDOW): void {
  if (w < 2 || h < 2) return;
  const a = new Uint8Array(band.length);
  const b = new Uint8Array(band.length);
  const g = new Uint8Array(Math.max(w, h));
  const hh = new Uint8Array(Math.max(w, h));
  for (let y = 0; y < h; y++) runningExtreme(band, a, y * w, 1, w, k, true, g, hh);
  for (let x = 0; x < w; x++) runningExtreme(a, b, x, w, h, k, true, g, hh);
  for (let y = 0; y < h; y++) runningExtreme(b, a, y * w, 1, w, k, false, g, hh);
  for (let x = 0; x < w; x++) runningExtreme(a, b, x, w, h, k, false, g, hh);
  for (let i = 0; i < band.length; i++) band[i] = Math.min(255, Math.round((band[i] * 255) / Math.max(1, b[i])));
}
