/** Cuts bands out of the flat card and stacks them into one image, so one OCR call reads many fields. */
import sharp from 'sharp';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../layouts.js';
import { grayPgm } from './ocr.js';

export interface Stack {
  /** The stacked bands, gray, as a binary PGM (what the OCR engine reads). */
  image: Buffer;
  /** Vertical extent of each band in the stacked image. */
  spans: { y0: number; y1: number; x0: number }[];
}

export const GAP = 14;
/** Fewest grey levels the contrast stretch maps to black..white. */
const MIN_RANGE = 96;

/** Bands cut, evened out and stacked at the card's own scale, before enlargement and encoding. */
export interface RawStack {
  /** Gray pixels, `width` x `height`. */
  raw: Buffer;
  width: number;
  height: number;
  /** Each band's vertical extent and left edge, unscaled. */
  spans: { y0: number; y1: number; x0: number }[];
}

/**
 * Cuts `boxes` out of the flat card (gray, CARD_WIDTH wide), evens out each
 * band's background (unless `flatten` is false) and contrast, and stacks them.
 */
export async function stackBands(gray: Buffer, boxes: Box[], scale = 1, flatten = true): Promise<Stack> {
  return encodeStack(composeStack(gray, boxes, flatten), scale);
}

/** The stack of `stackBands`, not yet enlarged or encoded. */
export function composeStack(gray: Buffer, boxes: Box[], flatten = true): RawStack {
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
  const spans: RawStack['spans'] = [];
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
    spans.push({ y0: top, y1: top + b.h, x0: GAP });
    top += b.h + GAP;
  }
  return { raw: out, width, height, spans };
}

/**
 * A one-band stack turned by 180 degrees: the same as composing the turned card (the background closing's
 * window is centred and clipped exactly at the edges, the contrast stretch counts pixels, so both commute
 * with the turn; the margins are equal on every side), without evening out the card a second time.
 */
export function turnStack(stack: RawStack): RawStack {
  if (stack.spans.length !== 1) throw new Error('only a one-band stack can be turned');
  const raw = Buffer.from(stack.raw);
  raw.reverse();
  return { ...stack, raw };
}

/** Enlarges the stack by `scale` and encodes it for OCR; spans in the enlarged image's pixels. */
export async function encodeStack(stack: RawStack, scale = 1): Promise<Stack> {
  const { raw, width, height } = stack;
  const spans = stack.spans.map((s) => ({ y0: s.y0 * scale, y1: s.y1 * scale, x0: s.x0 * scale }));
  if (scale === 1) return { image: grayPgm(raw, width, height), spans };
  const w = Math.round(width * scale);
  const h = Math.round(height * scale);
  const pixels = await sharp(raw, { raw: { width, height, channels: 1 } })
    .resize(w, h)
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { image: grayPgm(pixels, w, h), spans };
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

/**
 * Running max over `k` pixels along each row, centred (van Herk / Gil-Werman: O(1) per pixel): `g` holds the
 * max from the start of each k-block to the pixel, `h` from the pixel to the block's end, and the window's max
 * is that of h at its left end and g at its right end. (A running min is this on the inverted image.)
 */
function rowsMax(src: Uint8Array, dst: Uint8Array, w: number, rows: number, k: number, g: Uint8Array, h: Uint8Array): void {
  const r = k >> 1;
  for (let y = 0; y < rows; y++) {
    const o = y * w;
    for (let s = 0; s < w; s += k) {
      const end = s + k < w ? s + k : w;
      let m = (g[s] = src[o + s]);
      for (let i = s + 1; i < end; i++) {
        const v = src[o + i];
        g[i] = m = m > v ? m : v;
      }
      m = h[end - 1] = src[o + end - 1];
      for (let i = end - 2; i >= s; i--) {
        const v = src[o + i];
        h[i] = m = m > v ? m : v;
      }
    }
    // Inside the row a window is k samples whole: the max of h at its start and g at its end (when it starts a
    // block, both are that block's max). Only the r samples at each end are clipped windows.
    const edge = r < w ? r : w;
    for (let i = 0; i < edge; i++) dst[o + i] = windowMax(g, h, 0, i + r > w - 1 ? w - 1 : i + r, k);
    for (let i = r; i < w - r; i++) {
      const a = h[i - r];
      const b = g[i + r];
      dst[o + i] = a > b ? a : b;
    }
    for (let i = Math.max(edge, w - r); i < w; i++) dst[o + i] = windowMax(g, h, i - r < 0 ? 0 : i - r, w - 1, k);
  }
}

/**
 * The max over samples lo..hi (at most k apart) from a row's runs in `rowsMax`: h from lo to its block's end
 * and g from hi's block's start; inside one block (a window the image's edge clipped) the run that starts or
 * ends with the window alone, so the answer is exactly the clipped window's.
 */
function windowMax(g: Uint8Array, h: Uint8Array, lo: number, hi: number, k: number): number {
  if (Math.floor(lo / k) === Math.floor(hi / k)) return lo % k === 0 ? g[hi] : h[lo];
  const a = h[lo];
  const b = g[hi];
  return a > b ? a : b;
}

/** The same down each column, done a whole row at a time (rows are contiguous in memory): `g`, `h` image-sized. */
function columnsMax(src: Uint8Array, dst: Uint8Array, w: number, rows: number, k: number, g: Uint8Array, h: Uint8Array): void {
  const r = k >> 1;
  for (let y = 0; y < rows; y++) {
    const o = y * w;
    if (y % k === 0) g.set(src.subarray(o, o + w), o);
    else
      for (let x = 0; x < w; x++) {
        const p = g[o - w + x];
        const v = src[o + x];
        g[o + x] = p > v ? p : v;
      }
  }
  for (let y = rows - 1; y >= 0; y--) {
    const o = y * w;
    if (y === rows - 1 || (y + 1) % k === 0) h.set(src.subarray(o, o + w), o);
    else
      for (let x = 0; x < w; x++) {
        const p = h[o + w + x];
        const v = src[o + x];
        h[o + x] = p > v ? p : v;
      }
  }
  for (let y = 0; y < rows; y++) {
    const o = y * w;
    const lo = y - r < 0 ? 0 : y - r;
    const hi = y + r > rows - 1 ? rows - 1 : y + r;
    if (Math.floor(lo / k) === Math.floor(hi / k)) {
      // A window clipped by the image's edge inside one block: one of the two runs covers it exactly.
      const row = (lo % k === 0 ? hi : lo) * w;
      dst.set((lo % k === 0 ? g : h).subarray(row, row + w), o);
      continue;
    }
    for (let x = 0; x < w; x++) {
      const a = h[lo * w + x];
      const b = g[hi * w + x];
      dst[o + x] = a > b ? a : b;
    }
  }
}

let SCRATCH = new Uint8Array(0);

/** round(v * 255 / background), at most 255, for every background (row) and value (column); background 0 as 1. */
let DIVIDE: Uint8Array | undefined;
function divisionTable(): Uint8Array {
  const t = new Uint8Array(256 * 256);
  for (let bg = 0; bg < 256; bg++) for (let v = 0; v < 256; v++) t[(bg << 8) | v] = Math.min(255, Math.round((v * 255) / Math.max(1, bg)));
  return t;
}

function invert(a: Uint8Array): void {
  for (let i = 0; i < a.length; i++) a[i] = 255 - a[i];
}

/**
 * Divides a band by its background (a grayscale closing: max then min filter,
 * wider than the strokes), so text on a dark or uneven part of the card comes
 * out black on white, whatever the lighting, guilloche tint or shadow.
 */
export function flattenBackground(band: Buffer, w: number, h: number, k = BACKGROUND_WINDOW): void {
  if (w < 2 || h < 2) return;
  // Working images reused from call to call (this runs synchronously, one call at a time per thread).
  if (SCRATCH.length < 4 * band.length) SCRATCH = new Uint8Array(4 * band.length);
  const [a, b, g, hh] = [0, 1, 2, 3].map((i) => SCRATCH.subarray(i * band.length, (i + 1) * band.length));
  // Dilation (max), then erosion (min, as a max of the inverted image).
  rowsMax(band, a, w, h, k, g, hh);
  columnsMax(a, b, w, h, k, g, hh);
  invert(b);
  rowsMax(b, a, w, h, k, g, hh);
  columnsMax(a, b, w, h, k, g, hh);
  invert(b);
  const divide = (DIVIDE ??= divisionTable());
  for (let i = 0; i < band.length; i++) band[i] = divide[(b[i] << 8) | band[i]];
}
