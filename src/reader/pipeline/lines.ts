/**
 * Recognition of the detected text lines (detect.ts): each line's box, padded, is cut out of the flat card,
 * evened out like the field bands, and the lines are stacked into one image read by Tesseract's LSTM in one
 * call (a block of lines, `--psm 6`). The words come back to flat-card pixels through their line's box, so the
 * label anchoring (anchors.ts) works on them as on the whole card's reading.
 */
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../layouts.js';
import { toCardWords, type CardWord } from './anchors.js';
import { stackBands, type Stack } from './crops.js';
import type { OcrEngine, OcrWord } from './ocr.js';

/** Lines are enlarged so that their box is about this tall (letters about 22 px). 40 read the synthetic names
 * worse (96% against 100%: tone marks) and cost 0.07 s more per card; the development set read about as well. */
const LINE_HEIGHT = 32;
/** The stack's enlargement is kept within these bounds (a 14 px line of small print is read at x2). */
const MIN_SCALE = 1;
const MAX_SCALE = 2;
/** Each detected box is widened by this share of its height on each side (not heightened: the unclipped box
 * already holds the tone marks, and more takes in slivers of the lines above and below). */
const PAD = 0.2;
/** A box lower than this (card pixels) is a speck or a rule. */
const MIN_HEIGHT = 9;

/** The bands read for detected lines: padded, on the card, specks left out, top to bottom. */
export function lineBands(boxes: readonly Box[]): Box[] {
  return boxes
    .filter((b) => b.h >= MIN_HEIGHT && b.w >= b.h * 0.8)
    .map((b) => {
      const p = PAD * b.h;
      const x = Math.max(0, b.x - p);
      const y = Math.max(0, b.y);
      return { x, y, w: Math.min(CARD_WIDTH, b.x + b.w + p) - x, h: Math.min(CARD_HEIGHT, b.y + b.h) - y };
    })
    .sort((a, b) => a.y - b.y || a.x - b.x);
}

/** The stack's enlargement: its median line brought to LINE_HEIGHT, within bounds. */
export function stackScale(bands: readonly Box[]): number {
  const hs = bands.map((b) => b.h).sort((a, b) => a - b);
  const median = hs[Math.floor(hs.length / 2)] ?? LINE_HEIGHT;
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, LINE_HEIGHT / median));
}

/**
 * The words read on a stack of line bands, back in flat-card pixels: a word belongs to the band its centre is
 * in, and moves with that band's box (the stack put every band at its left margin, one under the other).
 */
export function wordsOnCard(words: readonly OcrWord[], stack: Pick<Stack, 'spans'>, bands: readonly Box[], scale: number): CardWord[] {
  const out: OcrWord[] = [];
  for (const w of words) {
    if (!/[\p{L}\p{N}]/u.test(w.text) && !(w.text === '-' && w.conf >= 60)) continue;
    const cy = w.top + w.height / 2;
    const i = stack.spans.findIndex((s) => cy >= s.y0 && cy < s.y1);
    if (i < 0) continue;
    const s = stack.spans[i];
    const b = bands[i];
    out.push({
      text: w.text,
      conf: w.conf,
      left: b.x + (w.left - s.x0) / scale,
      top: b.y + (w.top - s.y0) / scale,
      width: w.width / scale,
      height: w.height / scale,
      line: `${i}.${w.line}`,
    });
  }
  // Words OCR glued together ("đến:15/09/2041", a label's end and its value) split as on the whole card's reading.
  return toCardWords(out, 1);
}

/** Reads the detected lines of a flat card (gray, CARD_WIDTH x CARD_HEIGHT) in one OCR call. */
export async function readLines(ocr: OcrEngine, gray: Buffer, boxes: readonly Box[]): Promise<CardWord[]> {
  const bands = lineBands(boxes);
  if (bands.length === 0) return [];
  const scale = stackScale(bands);
  const stack = await stackBands(gray, bands, scale);
  const words = await ocr.recognize(stack.image, { lang: 'vie', psm: 6 });
  return wordsOnCard(words, stack, bands, scale);
}

/** Boxes on a card turned by 180 degrees. */
export function turnBoxes<T extends Box>(boxes: readonly T[]): T[] {
  return boxes.map((b) => ({ ...b, x: CARD_WIDTH - b.x - b.w, y: CARD_HEIGHT - b.y - b.h }));
}
