/**
 * The second reading of fields the detected lines left without a value, limited to where they can be: the rows
 * of the card whose detected lines no field claimed (neither a value's word nor a label lies on them). A field
 * that was not found has its label and value on such lines, or on none the detector saw; the rows read are
 * cut out as full-width bands, stacked and read in one sparse-text call (as the whole card was), and their
 * words take the place of the detected lines' words on those rows, so the labels and values read elsewhere
 * still frame them (a value stops at the next label; the expiry by its shape needs the date of birth).
 */
import { CARD_HEIGHT, CARD_WIDTH, type Box, type IdCardField } from '../layouts.js';
import type { AnchoredValue, CardWord } from './anchors.js';
import type { RawStack } from './crops.js';

/** A span is read this many card pixels taller each way (a label's box cut at its tone marks). */
const SPAN_PAD = 8;

const centre = (w: Pick<CardWord, 'left' | 'top' | 'width' | 'height'>) => ({ x: w.left + w.width / 2, y: w.top + w.height / 2 });
const inside = (p: { x: number; y: number }, b: Box) => p.x >= b.x && p.x <= b.x + b.w && p.y >= b.y && p.y <= b.y + b.h;

/**
 * Where a field not found can be printed, top to bottom: from the label of the nearest field found before it in
 * print order (the expiry under the portrait is level with the address's value, below its label) to the bottom
 * of the label of the nearest one found after it; the card's edge where there is none.
 */
export function fieldSpan(order: readonly IdCardField[], anchored: Partial<Record<IdCardField, AnchoredValue>>, field: IdCardField): { y0: number; y1: number } {
  const i = order.indexOf(field);
  const before = order
    .slice(0, Math.max(0, i))
    .reverse()
    .find((f) => anchored[f]);
  const after = order.slice(i + 1).find((f) => anchored[f]);
  const y0 = before ? anchored[before]!.label.box.y : 0;
  const y1 = after ? anchored[after]!.label.box.y + anchored[after]!.label.box.h : CARD_HEIGHT;
  // Fields found out of print order (a value taken for another's): nothing to go by but the whole card.
  return y1 > y0 ? { y0, y1 } : { y0: 0, y1: CARD_HEIGHT };
}

/** The rows to read again: the spans of the fields not found, a little taller (a letter cut at a label's edge), merged. */
export function spanRows(spans: readonly { y0: number; y1: number }[]): Box[] {
  const rows = spans.map((s) => ({ y0: Math.max(0, s.y0 - SPAN_PAD), y1: Math.min(CARD_HEIGHT, s.y1 + SPAN_PAD) })).sort((a, b) => a.y0 - b.y0);
  const merged: { y0: number; y1: number }[] = [];
  for (const r of rows) {
    const last = merged[merged.length - 1];
    if (last && r.y0 <= last.y1) last.y1 = Math.max(last.y1, r.y1);
    else merged.push({ ...r });
  }
  return merged.map((r) => ({ x: 0, y: r.y0, w: CARD_WIDTH, h: r.y1 - r.y0 }));
}

/**
 * The whole card's prepared image (evened out, `margin` px of white around the card) with everything but `rows`
 * painted white: the rows keep the very pixels the whole card's reading saw, and Tesseract's cost follows the
 * text left.
 */
export function onlyRows(stack: RawStack, rows: readonly Box[], margin: number): RawStack {
  const raw = Buffer.alloc(stack.raw.length, 255);
  for (const r of rows) {
    const y0 = Math.max(0, Math.floor(r.y) + margin);
    const y1 = Math.min(stack.height, Math.ceil(r.y + r.h) + margin);
    stack.raw.copy(raw, y0 * stack.width, y0 * stack.width, y1 * stack.width);
  }
  return { ...stack, raw };
}

/** The card's words with those on `rows` replaced by the rows' own reading. */
export function spliceRows(words: readonly CardWord[], rowWords: readonly CardWord[], rows: readonly Box[]): CardWord[] {
  const onRows = (w: CardWord) => rows.some((r) => inside(centre(w), r));
  return [...words.filter((w) => !onRows(w)), ...rowWords].sort((a, b) => a.top - b.top || a.left - b.left);
}
