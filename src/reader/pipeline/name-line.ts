/**
 * The name read a second time by the reader's own line recogniser (line-recogniser.ts) on the detected line that
 * holds it, beside Tesseract's readings of it: two readers of different kinds that spell the same name vouch for
 * it; where they differ, the name is made from both and stays unsure (combineName).
 */
import type { Box, CardKind, IdCardField } from '../layouts.js';
import type { AnchoredValue } from './anchors.js';
import { digitLineBox, type CardLines } from './digits.js';
import { fold } from './text.js';
import { nameOf, plausibleName, type RawField } from './fields.js';
import type { LineRecogniser } from './line-recogniser.js';
import type { LineReading } from './recognise.js';

/** The name's line box (the detected lines on its first value line's row, from just left of its first word). */
export function nameLineBox(name: Pick<AnchoredValue, 'lineBoxes'>, lines: readonly Box[]): Box {
  return digitLineBox(name, lines, 'near');
}

/** Which reader's marks a name takes when both read the same letters and differ only in tone marks. */
export const MARKS_FROM: 'network' | 'tesseract' = 'tesseract';

/**
 * Whether the two readers agreeing vouches for a name on a card of this kind: not on the 9-digit card, whose
 * names were typed or printed in faces the recogniser's training lines do not draw (both readers misread the
 * same faint mark there: on the development set 2 of its 7 agreed names were wrong, against none of 25 on the
 * other fronts), so its names stay under 80 as before.
 */
export function agreementVouches(kind: CardKind): boolean {
  return kind !== 'cmnd_09_front';
}

/**
 * Tesseract's name (`tesseract`, already voted between its two readings) and the network's reading of the line
 * made one. They spell the same name: it stands, sure (`agreed`), with the surer reader's confidence. They differ:
 * the one that is a plausible name (a family name, Vietnamese syllables) when only one is; both are and only the
 * marks differ, the marks `marks` says; the letters differ, the network's letters with Tesseract's marks on the
 * words spelt alike (or the network's whole reading when `marks` says so); unsure in every case. Only the network
 * read one: its reading, unsure, when a plausible name.
 */
export function combineName(
  tesseract: RawField | undefined,
  net: LineReading | undefined,
  marks: 'network' | 'tesseract' = MARKS_FROM,
): { name?: RawField; agreed: boolean } {
  const read: RawField | undefined = net?.text ? { text: net.text, conf: net.conf } : undefined;
  const n = nameOf(read);
  const t = nameOf(tesseract);
  if (!read || !n) return { name: tesseract, agreed: false };
  if (!tesseract || !t) return plausibleName(n) ? { name: { ...read, unsure: true }, agreed: false } : { name: tesseract, agreed: false };
  if (n === t) return { name: { ...tesseract, conf: Math.max(tesseract.conf, read.conf), unsure: false }, agreed: true };
  if (!plausibleName(n)) return { name: { ...tesseract, unsure: true }, agreed: false };
  if (!plausibleName(t)) return { name: { ...read, unsure: true }, agreed: false };
  // Both plausible. Only the marks differ: the marks `marks` says. The letters differ: the network's spelling, which
  // reads card print better than Tesseract (dev line crops: names 24 against 18 exact, 94.3% against 91.2% of the
  // characters), with Tesseract's marks on each word the two spell alike when `marks` says Tesseract's.
  if (fold(n) === fold(t)) return { name: marks === 'network' ? { ...read, unsure: true } : { ...tesseract, unsure: true }, agreed: false };
  return { name: { text: marks === 'network' ? n : marksOnAlike(n, t), conf: read.conf, unsure: true }, agreed: false };
}

/** `letters`' words, each taking `marks`' spelling where `marks` has the same word, tone marks aside, in the same place. */
export function marksOnAlike(letters: string, marks: string): string {
  const a = letters.split(' ');
  const b = marks.split(' ');
  // Words are paired from the start when both have as many, else from whichever end pairs more alike.
  const offset = a.length === b.length ? 0 : bestOffset(a, b);
  return a.map((w, i) => (b[i + offset] !== undefined && fold(b[i + offset]) === fold(w) ? b[i + offset] : w)).join(' ');
}

/** The shift of `b` against `a` (start-aligned or end-aligned) under which more words are alike, marks aside. */
function bestOffset(a: string[], b: string[]): number {
  const alike = (offset: number) => a.filter((w, i) => b[i + offset] !== undefined && fold(b[i + offset]) === fold(w)).length;
  const end = b.length - a.length;
  return alike(end) > alike(0) ? end : 0;
}

/**
 * The name stage: the name's line read by the network and combined with Tesseract's reading (combineName). Answers
 * the fields' raw readings, whether the two agreed, and what the network read (undefined when it could not run).
 */
export async function readNameAgain(
  recogniser: LineRecogniser,
  { gray, width, height, lines, anchored }: CardLines,
  raw: Partial<Record<IdCardField, RawField>>,
): Promise<{ raw: Partial<Record<IdCardField, RawField>>; agreed: boolean; network?: LineReading }> {
  const value = anchored.name;
  if (!value || value.lineBoxes.length === 0) return { raw, agreed: false };
  let network: LineReading;
  try {
    [network] = await recogniser.readLines(gray, width, height, [nameLineBox(value, lines)]);
  } catch {
    // The network's model missing or unloadable: Tesseract's reading stands.
    return { raw, agreed: false };
  }
  const { name, agreed } = combineName(raw.name, network);
  const out = { ...raw };
  if (name) out.name = name;
  return { raw: out, agreed, network };
}
