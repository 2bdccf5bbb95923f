/**
 * A place (home, address, place of birth) whose Tesseract reading the gazetteer cannot place, read again by the
 * reader's own line recogniser (line-recogniser.ts) on the detected lines that hold it. The recogniser's reading
 * replaces Tesseract's only when the gazetteer places it (two units or more: ward, district, province) and
 * Tesseract's it did not; unsure either way, since one reader alone vouches for it.
 */
import type { Box, CardLayout, IdCardField } from '../layouts.js';
import { isStreetWord } from './address.js';
import type { AnchoredValue, CardWord } from './anchors.js';
import { digitLineBox, type CardLines } from './digits.js';
import { normaliseFields, normalisePlace, vietnameseWord, type NormalisedCard, type RawField } from './fields.js';
import type { LineRecogniser } from './line-recogniser.js';
import type { LineReading } from './recognise.js';
import { foldKey, levenshtein } from './text.js';

/** The fields that are places, in the order a card prints them. */
export const PLACE_FIELDS: readonly IdCardField[] = ['pob', 'home', 'address'];

/** The recogniser's reading of each box, or undefined when it cannot run (the stage then changes nothing). */
async function readBoxes(
  recogniser: LineRecogniser,
  { gray, width, height }: Pick<CardLines, 'gray' | 'width' | 'height'>,
  asks: readonly { box: Box }[],
): Promise<LineReading[] | undefined> {
  try {
    return await recogniser.readLines(
      gray,
      width,
      height,
      asks.map((a) => a.box),
    );
  } catch {
    return undefined;
  }
}

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
  const read = await readBoxes(recogniser, { gray, width, height }, boxes);
  if (!read) return { raw, replaced: [] };
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

/** Tesseract's words on a value line that its raw reading keeps (rawFromWords' noise filter for places). */
const kept = (w: { text: string; conf: number }) => /[\p{L}\p{N}]/u.test(w.text) && w.conf >= 20 && !(w.text.length === 1 && w.conf < 60);

/** The box around some words. */
function wordsBox(ws: readonly CardWord[]): Box {
  const x = Math.min(...ws.map((w) => w.left));
  const y = Math.min(...ws.map((w) => w.top));
  return { x, y, w: Math.max(...ws.map((w) => w.left + w.width)) - x, h: Math.max(...ws.map((w) => w.top + w.height)) - y };
}

/** A gap before the first kept word wider than this many letter heights may hold words Tesseract lost. */
const GAP = 1.5;

/** A word a place can start with: a Vietnamese syllable, a street word or abbreviation ("Kv", "Tổ"), a house number. */
function placeWord(text: string): boolean {
  return vietnameseWord(text) || isStreetWord(text) || /^\d+[A-Za-z]?([/-]\d+[A-Za-z]?)*[,.]?$/.test(text);
}

/**
 * The recogniser's words for a place's start, with what is left of the label dropped: words up to a colon, and
 * leading words of the label's wording or its English half ("Place of residence").
 */
export function startWords(text: string, label: string): string[] {
  const afterColon = text.split(/[:;]/).pop() ?? '';
  const labelKeys = `${label} place of residence origin birth`
    .split(/[\s/]+/)
    .map(foldKey)
    .filter(Boolean);
  const words = afterColon.split(/[\s.…]+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  while (words.length > 0 && labelKeys.some((k) => k === foldKey(words[0]) || (k.length >= 5 && levenshtein(k, foldKey(words[0])) <= 1))) words.shift();
  return words;
}

/** Two readers' spellings of one word agree: the same letters, marks aside, one slip allowed from four letters. */
function alike(a: string, b: string): boolean {
  const x = foldKey(a);
  const y = foldKey(b);
  return x === y || (Math.min(x.length, y.length) >= 4 && levenshtein(x, y) <= 1);
}

/**
 * A place's start on its label's row: where Tesseract kept no word between the label and the value's first word
 * it was sure enough of (a word read at confidence 10 and dropped, a unit it did not read at all), the recogniser
 * reads that row from the label's end to the line's end.
 * Its extra words in front are taken, unsure, only with a second witness: its reading of the rest of the row
 * agrees with Tesseract's kept words (the same line was read), and each extra word is one Tesseract also saw
 * there, however unsurely; or, with no kept word on the row to compare, the gazetteer places one unit more with
 * them (a ward inside the district already found). Answers the raw readings with those places extended.
 */
export async function readPlaceStarts(
  recogniser: LineRecogniser,
  { gray, width, height, lines, anchored }: CardLines,
  words: readonly CardWord[],
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  fields: readonly IdCardField[],
): Promise<{ raw: Partial<Record<IdCardField, RawField>>; extended: IdCardField[] }> {
  const asks: { field: IdCardField; box: Box; row: CardWord[]; seen: CardWord[] }[] = [];
  for (const f of fields) {
    const a = anchored[f];
    const r = raw[f];
    if (!a || !r?.text) continue;
    const label = a.label.box;
    const h = label.h;
    const onRow = (b: Box) => Math.min(b.y + b.h, label.y + label.h) - Math.max(b.y, label.y) >= 0.5 * Math.min(b.h, label.h);
    const onLabelRow = words.filter((w) => onRow({ x: w.left, y: w.top, w: w.width, h: w.height }));
    // The label ends at its last word Tesseract matched, or at a word with its colon after it (the English half
    // read too badly to match: "ofresidenee:").
    const colons = onLabelRow.filter((w) => w.left >= label.x && /[:;]$/.test(w.text)).map((w) => w.left + w.width);
    const x0 = Math.max(label.x + label.w, ...colons);
    const row = lines.filter((l) => onRow(l) && l.x + l.w > x0 + 2 * h);
    if (row.length === 0) continue;
    // Tesseract's kept words of the value on the label's row, and where the first of them starts.
    const first = a.lines[0] ?? [];
    const sameRow = first.length > 0 && onRow(wordsBox(first));
    // As the raw reading does, words up to one with a colon after it are the label's.
    const colon = first.map((w) => /[:;]$/.test(w.text)).lastIndexOf(true);
    const rowWords = sameRow ? first.slice(colon + 1).filter(kept) : [];
    const start = rowWords.length > 0 ? Math.min(...rowWords.map((w) => w.left)) : Math.max(...row.map((l) => l.x + l.w));
    if (start - x0 < GAP * h) continue;
    const top = Math.max(Math.min(...row.map((l) => l.y)), label.y - 0.5 * h);
    const bottom = Math.min(Math.max(...row.map((l) => l.y + l.h)), label.y + 1.5 * h);
    const end = Math.max(...row.map((l) => l.x + l.w));
    // Every word Tesseract read in the gap, kept or not, glued to a dotted leader or not.
    const seen = onLabelRow.filter((w) => w.left >= x0 - 0.2 * h && w.left < start && /[\p{L}\p{N}]/u.test(w.text));
    asks.push({ field: f, box: { x: x0, y: top, w: end - x0, h: bottom - top }, row: rowWords, seen });
  }
  if (asks.length === 0) return { raw, extended: [] };
  const read = await readBoxes(recogniser, { gray, width, height }, asks);
  if (!read) return { raw, extended: [] };
  const out = { ...raw };
  const extended: IdCardField[] = [];
  asks.forEach(({ field, row, seen }, i) => {
    const got = startWords(read[i].text, anchored[field]!.label.label);
    // The recogniser's reading of the row must end with Tesseract's kept words there: the same line was read.
    if (got.length <= row.length) return;
    const tail = got.slice(got.length - row.length);
    if (!tail.every((w, k) => alike(w, row[k].text))) return;
    const extra = got.slice(0, got.length - row.length);
    if (!extra.every(placeWord)) return;
    const witnessed = seen.flatMap((w) => w.text.split(/[.…]+/).filter((t) => /[\p{L}\p{N}]/u.test(t)));
    const text = `${extra.join(' ')} ${raw[field]!.text}`;
    const reading: RawField = { text, conf: Math.min(raw[field]!.conf, read[i].conf), unsure: true };
    // Tesseract saw a word wherever the recogniser reads one (it read it too unsurely to keep), or spelled each alike.
    const byTesseract = witnessed.length === extra.length || extra.every((w) => witnessed.some((s) => alike(s, w)));
    const units = (r: RawField) => normalisePlace(layout.kind, r).parsed.matched;
    const placesMore = row.length === 0 && units(reading) > units(raw[field]!);
    if (!byTesseract && !placesMore) return;
    out[field] = reading;
    extended.push(field);
  });
  return { raw: out, extended };
}
