/**
 * A place (home, address, place of birth) whose Tesseract reading the gazetteer cannot place, read again by the
 * reader's own line recogniser (line-recogniser.ts) on the detected lines that hold it. The recogniser's reading
 * replaces Tesseract's only when the gazetteer places it (two units or more: ward, district, province) and
 * Tesseract's it did not; unsure either way, since one reader alone vouches for it.
 */
import type { CardLayout, IdCardField } from '../layouts.js';
import type { AnchoredValue } from './anchors.js';
import { digitLineBox, type CardLines } from './digits.js';
import { normaliseFields, type NormalisedCard, type RawField } from './fields.js';
import type { LineRecogniser } from './line-recogniser.js';

/** The fields that are places, in the order a card prints them. */
const PLACE_FIELDS: readonly IdCardField[] = ['pob', 'home', 'address'];

/** The places the gazetteer could not place from Tesseract's reading (missing, or fewer than two units matched). */
export function unplacedPlaces(layout: CardLayout, normal: NormalisedCard, anchored: Partial<Record<IdCardField, AnchoredValue>>): IdCardField[] {
  return PLACE_FIELDS.filter((f) => layout.fields.includes(f) && anchored[f] && anchored[f].lineBoxes.length > 0 && !normal.fields[f]?.valid);
}

/**
 * The place stage: each place of `fields` read by the recogniser line by line (each value line's detected line,
 * as the name stage cuts the name's), the lines joined, and kept where the gazetteer places the reading. Answers
 * the raw readings with those places replaced, and which were. A recogniser that cannot run changes nothing.
 */
export async function readPlacesAgain(
  recogniser: LineRecogniser,
  { gray, width, height, lines, anchored }: CardLines,
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  fields: readonly IdCardField[],
): Promise<{ raw: Partial<Record<IdCardField, RawField>>; replaced: IdCardField[] }> {
  if (fields.length === 0) return { raw, replaced: [] };
  const boxes = fields.flatMap((f) => anchored[f]!.lineBoxes.map((b) => ({ field: f, box: digitLineBox({ lineBoxes: [b] }, lines, 'near') })));
  let read: { text: string; conf: number }[];
  try {
    read = await recogniser.readLines(
      gray,
      width,
      height,
      boxes.map((b) => b.box),
    );
  } catch {
    return { raw, replaced: [] };
  }
  const out = { ...raw };
  const replaced: IdCardField[] = [];
  for (const f of fields) {
    const parts = read.filter((_, i) => boxes[i].field === f && read[i].text.trim());
    if (parts.length === 0) continue;
    const reading: RawField = { text: parts.map((p) => p.text.trim()).join(' '), conf: parts.reduce((s, p) => s + p.conf, 0) / parts.length, unsure: true };
    const placed = normaliseFields(layout, { ...raw, [f]: reading }).fields[f];
    if (placed?.valid) {
      out[f] = reading;
      replaced.push(f);
    }
  }
  return { raw: out, replaced };
}
