/**
 * The digit fields (id, dates) read a second time by the recognition network (recognise.ts) on the detected line
 * that holds each value, beside Tesseract's reading of the same value.
 */
import type { Box, CardLayout, IdCardField } from '../layouts.js';
import type { AnchoredValue, CardWord } from './anchors.js';
import { fieldProbability } from './confidence.js';
import { normaliseFields, type FieldValue, type NormalisedCard, type RawField } from './fields.js';
import { recogniseLines, type LineReading } from './recognise.js';
import type { LineRecogniser } from './line-recogniser.js';

/** The fields printed in digits that the network reads again. */
export const DIGIT_FIELDS: readonly IdCardField[] = ['id', 'dob', 'doe', 'issue_date'];

/** How far left of the first digit Tesseract found the network's crop starts, in letter heights (a lost first digit). */
const LEAD = 0.6;
/** Room left after a number's detected line, in letter heights. */
const TAIL = 0.3;
/** How far above and below the value's words the crop may reach, in letter heights (the line's unclipped margin). */
const MARGIN = 0.5;

/**
 * The box the network reads for a one-line value: the detected lines on the value's row, from just left of where
 * Tesseract's words start (so the label before it is left out) to the lines' end (so digits Tesseract lost at the
 * end are in); the value's own box, padded, when no detected line is on its row.
 */
export function digitLineBox(value: Pick<AnchoredValue, 'lineBoxes'>, lines: readonly Box[], reach: 'overlap' | 'near' | 'line' = 'overlap'): Box {
  const v = value.lineBoxes[0];
  // A number is one detected line: only the lines over the value's words count ('overlap'), not one that starts
  // just after it (the chip front's expiry, under the portrait, ends a few pixels left of the address's line).
  // A name may have words the detector put in a line of their own just after ('near': within a letter height).
  const margin = reach === 'near' ? v.h : 0;
  const row = lines.filter((l) => {
    const overlap = Math.min(l.y + l.h, v.y + v.h) - Math.max(l.y, v.y);
    return overlap >= 0.5 * Math.min(l.h, v.h) && l.x < v.x + v.w + margin && l.x + l.w > v.x - margin;
  });
  const y0 = v.y - MARGIN * v.h;
  const y1 = v.y + v.h + MARGIN * v.h;
  if (row.length === 0) return { x: Math.max(0, v.x - LEAD * v.h), y: Math.max(0, y0), w: v.w + 2 * LEAD * v.h, h: y1 - y0 };
  const ux0 = Math.min(...row.map((l) => l.x));
  const ux1 = Math.max(...row.map((l) => l.x + l.w));
  const uy0 = Math.min(...row.map((l) => l.y));
  const uy1 = Math.max(...row.map((l) => l.y + l.h));
  // From just left of the value's words, or ('line') from the detected lines' own start, label and all.
  const x = reach === 'line' ? ux0 : Math.max(ux0, v.x - LEAD * v.h);
  const top = Math.max(uy0, y0);
  // The number's own line ends where its last digit does: a little room after it, so the digit is whole.
  const end = Math.max(ux1, v.x + v.w) + (reach === 'near' ? 0 : TAIL * v.h);
  return { x, y: top, w: end - x, h: Math.min(uy1, y1) - top };
}

/**
 * The digit fields worth a second reader: placed on the card, and Tesseract's value missing, or under 80 (no
 * validator confirmed it, or its two readings disagreed), and every 9-digit id (no check digit confirms it). Any
 * other value already at 80 or more is not read again: on the
 * development set the network changed none of those (it agreed on all but one, which it misread), and each line
 * costs about 0.05 s of CPU.
 */
export function doubtfulDigitFields(layout: CardLayout, normal: NormalisedCard, anchored: Partial<Record<IdCardField, AnchoredValue>>): IdCardField[] {
  // A 9-digit id has no check digit: only another reader's agreement confirms it, so it is always read again.
  const nineDigits = (f: IdCardField) => f === 'id' && normal.fields.id?.value.length === 9;
  return DIGIT_FIELDS.filter((f) => layout.fields.includes(f) && anchored[f] && (nineDigits(f) || !(normal.fields[f] && fieldProbability(normal.fields[f]) >= 80)));
}

/** A flat card as the second readers see it: its gray pixels, its detected lines, and the values anchored on it. */
export interface CardLines {
  gray: Buffer;
  width: number;
  height: number;
  lines: readonly Box[];
  anchored: Partial<Record<IdCardField, AnchoredValue>>;
}

/** A reader of line boxes on a gray card: the network (recognise.ts) or the project's line recogniser. */
export type ReadBoxes = (gray: Buffer, width: number, height: number, boxes: readonly Box[]) => Promise<LineReading[]>;

/** A reader's reading of each of `fields` (anchored on the card), as raw field text (the network's by default). */
export async function readDigitFields(
  { gray, width, height, lines, anchored }: CardLines,
  fields: readonly IdCardField[],
  read: ReadBoxes = recogniseLines,
  reach: 'overlap' | 'line' = 'overlap',
): Promise<Partial<Record<IdCardField, RawField>>> {
  if (fields.length === 0) return {};
  const boxes = fields.map((f) => digitLineBox(anchored[f]!, lines, reach));
  const readings = await read(gray, width, height, boxes);
  const out: Partial<Record<IdCardField, RawField>> = {};
  fields.forEach((f, i) => {
    if (readings[i].text) out[f] = { text: readings[i].text, conf: readings[i].conf };
  });
  return out;
}

/** Field `f` as normalised with `reading` in place of `raw`'s reading of it (the card's other fields as read). */
function valueWith(layout: CardLayout, raw: Partial<Record<IdCardField, RawField>>, f: IdCardField, reading: RawField | undefined): FieldValue | undefined {
  return reading ? normaliseFields(layout, { ...raw, [f]: reading }).fields[f] : undefined;
}

/** A validator confirmed the value and none rejected it. */
const confirmed = (v: FieldValue | undefined) => v?.valid === true && !v.invalid;

/**
 * Tesseract's readings of the digit fields and the network's, made one. The two agree: the value stands, and the
 * field is in `agreed` (two readers of different kinds agreeing lifts the doubts that kept it under 80: Tesseract's
 * two readings disagreeing, an id whose province is not the card's). They differ: Tesseract's value when a validator
 * confirmed it and nothing else doubted it (or the network's is not confirmed either), else the network's, which
 * reads printed digits better (dev fronts: ids 23 of 28 against 21); either way unsure. Only the network read one: its
 * value, unsure. The project's line recogniser (`third`, where it read a field) only fills in: neither of the two
 * read a value a validator confirms and it did, its value, unsure. It never takes a side, because its slips and
 * Tesseract's coincide (dev fronts: on 2 of 12 ids of 12-digit cards both read the same wrong digit).
 */
export function combineDigits(
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  net: Partial<Record<IdCardField, RawField>>,
  third: Partial<Record<IdCardField, RawField>> = {},
): { raw: Partial<Record<IdCardField, RawField>>; agreed: IdCardField[] } {
  const out = { ...raw };
  const agreed: IdCardField[] = [];
  const tesseract = normaliseFields(layout, raw).fields;
  for (const f of DIGIT_FIELDS) {
    const t = tesseract[f];
    const n = valueWith(layout, raw, f, net[f]);
    if (!n || !confirmed(n)) {
      const m = valueWith(layout, raw, f, third[f]);
      if (m && confirmed(m) && !confirmed(t)) {
        out[f] = { ...third[f]!, unsure: true };
        continue;
      }
    }
    if (!n) continue;
    if (t?.value === n.value) agreed.push(f);
    else if (t && confirmed(t) && (!t.unsure || !confirmed(n))) out[f] = { ...raw[f]!, unsure: true };
    else out[f] = { ...net[f]!, unsure: true };
  }
  return { raw: out, agreed };
}

/** The doubtful fields the recogniser reads: those for which neither Tesseract nor the network has a confirmed value. */
export function unconfirmed(
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  net: Partial<Record<IdCardField, RawField>>,
  fields: readonly IdCardField[],
): IdCardField[] {
  const tesseract = normaliseFields(layout, raw).fields;
  return fields.filter((f) => !confirmed(tesseract[f]) && !confirmed(valueWith(layout, raw, f, net[f])));
}

/**
 * The fields Tesseract and the network read the same (`agreed`), in place: two readers of different kinds agreeing
 * lifts the doubts that kept them under 80, and confirms a back's issue date, which nothing else on the back
 * checks, when it is a real date not after `today`.
 */
export function confirmAgreed(fields: Partial<Record<IdCardField, FieldValue>>, agreed: readonly IdCardField[], today = new Date()): void {
  for (const f of agreed) {
    const v = fields[f];
    if (!v) continue;
    v.unsure = false;
    if (f === 'issue_date' && !v.invalid && dateValue(v.value) <= today.getTime()) v.valid = true;
  }
}

/** dd/mm/yyyy as a time (NaN when it is not one). */
function dateValue(date: string): number {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(date);
  return m ? Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])) : NaN;
}

/** The most lines read when looking for one unplaced field. */
const MAX_CANDIDATES = 4;
/** Digits Tesseract read on a line that put it first among the candidates. */
const MIN_SEEN_DIGITS = 4;
/** Whether a word's centre lies in box `b`. */
const inside = (w: CardWord, b: Box) => {
  const x = w.left + w.width / 2;
  const y = w.top + w.height / 2;
  return x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h;
};
/** A detected line shorter than this many of its heights holds no id or date. */
const MIN_DIGIT_LINE = 3;

/** Whether most of line `l` lies inside box `b`. */
function mostlyIn(l: Box, b: Box): boolean {
  const w = Math.min(l.x + l.w, b.x + b.w) - Math.max(l.x, b.x);
  const h = Math.min(l.y + l.h, b.y + b.h) - Math.max(l.y, b.y);
  return w > 0 && h > 0 && w * h >= 0.3 * l.w * l.h;
}

/**
 * Where a digit field Tesseract could not place may still be: the detected lines that hold no placed value and
 * no found label, long enough for a number, in the band of the card where the fields' printing order puts it
 * (every front prints its id above the name and its expiry below the date of birth).
 */
export function unplacedLines(lines: readonly Box[], anchored: Partial<Record<IdCardField, AnchoredValue>>, band: { above?: number; below?: number }): Box[] {
  const taken = Object.values(anchored).flatMap((a) => (a ? [a.box, a.label.box] : []));
  return lines.filter(
    (l) =>
      l.w >= MIN_DIGIT_LINE * l.h &&
      (band.above === undefined || l.y + l.h / 2 < band.above) &&
      (band.below === undefined || l.y + l.h / 2 > band.below) &&
      !taken.some((b) => mostlyIn(l, b)),
  );
}

/**
 * The order in which candidate lines are read: those on which Tesseract read a few digits first (a date whose
 * label and digits it garbled together), then the likeliest by place (`first`).
 */
export function candidateOrder(lines: readonly Box[], first: (a: Box, b: Box) => number, words: readonly CardWord[]): Box[] {
  const digits = (l: Box) =>
    words
      .filter((w) => inside(w, l))
      .map((w) => w.text.replace(/\D/g, ''))
      .join('').length >= MIN_SEEN_DIGITS
      ? 0
      : 1;
  return [...lines].sort((a, b) => digits(a) - digits(b) || first(a, b));
}

/** The recogniser as a reader that reads nothing, instead of failing, when its model is missing or unloadable. */
function quietly(recogniser: LineRecogniser): ReadBoxes {
  return (gray, width, height, boxes) => recogniser.readLines(gray, width, height, boxes).catch(() => boxes.map(() => ({ text: '', conf: 0, chars: [] })));
}

/**
 * Whether a date of birth found by its shape fits the 12-digit id the card's fields hold (its 4th digit the century
 * and sex, its 5th and 6th the year's last two digits); any date fits a card without one.
 */
export function birthYearFits(dob: string, id: string | undefined): boolean {
  if (!id || id.length !== 12) return true;
  const year = Number(dob.slice(6));
  return year === 1900 + 100 * Math.floor(Number(id[3]) / 2) + Number(id.slice(4, 6));
}

/**
 * The id, date of birth and expiry the card's anchoring did not place, looked for on the lines where they may be
 * (unplacedLines), each line read by the network, then by the project's line recogniser (`second`, when given)
 * if the network's reading is not confirmed: the first reading that its field's validator confirms with the card's
 * other fields (an id's province, century, birth year and sex; a date of birth in a holder's lifetime and the
 * 12-digit id's birth year; an expiry on a 25th, 40th or 60th birthday). One reader alone vouches for it: unsure.
 */
export async function findUnplaced(
  { gray, width, height, lines, anchored }: CardLines,
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  words: readonly CardWord[] = [],
  second?: LineRecogniser,
): Promise<Partial<Record<IdCardField, RawField>>> {
  const wanted: { field: IdCardField; band: { above?: number; below?: number }; first: (a: Box, b: Box) => number }[] = [];
  // The id is printed just above the name: the nearest lines above it first. A name left unplaced (its line read
  // as nothing that looks like one), the date of birth's label bounds it: the name lies between, and no name
  // line passes the id's checks.
  const name = anchored.name?.label.box ?? anchored.dob?.label.box;
  if (layout.fields.includes('id') && !anchored.id && name) wanted.push({ field: 'id', band: { above: name.y }, first: (a, b) => b.y - a.y });
  // The date of birth is printed just below the name (its label unread: "Sinh ngày" in the 9-digit card's artwork),
  // above the next field whose label was found: the nearest lines below the name first.
  const nameBox = anchored.name?.box;
  const below = nameBox && nameBox.y + nameBox.h;
  const next = below === undefined ? [] : Object.values(anchored).flatMap((a) => (a && a.label.box.y > below ? [a.label.box.y] : []));
  if (layout.fields.includes('dob') && !anchored.dob && below !== undefined && next.length > 0)
    wanted.push({ field: 'dob', band: { below, above: Math.min(...next) }, first: (a, b) => a.y - b.y });
  const dob = anchored.dob?.box;
  // The expiry is the last field printed: the lowest lines first.
  if (layout.fields.includes('doe') && !anchored.doe && dob && raw.dob) wanted.push({ field: 'doe', band: { below: dob.y + dob.h }, first: (a, b) => b.y - a.y });
  const readers: ReadBoxes[] = [recogniseLines, ...(second ? [quietly(second)] : [])];
  const found: Partial<Record<IdCardField, RawField>> = {};
  for (const { field, band, first } of wanted) {
    const fits = (v: FieldValue | undefined, fields: NormalisedCard['fields']) => confirmed(v) && (field !== 'dob' || birthYearFits(v!.value, fields.id?.value));
    // One line at a time, the likeliest first, up to a few: each costs about 0.05 s a reader.
    look: for (const line of candidateOrder(unplacedLines(lines, anchored, band), first, words).slice(0, MAX_CANDIDATES)) {
      for (const read of readers) {
        const [r] = await read(gray, width, height, [line]);
        const all = normaliseFields(layout, { ...raw, [field]: { text: r.text, conf: r.conf } }).fields;
        if (fits(all[field], all)) {
          found[field] = { text: r.text, conf: r.conf, unsure: true };
          break look;
        }
      }
    }
  }
  return found;
}

/**
 * The digit stage: the doubtful digit fields read again by the network and combined with Tesseract's (combineDigits),
 * the project's line recogniser (`second`, when given) reading those neither confirms, then the id, date
 * of birth and expiry the anchoring did not place looked for on the card's other lines (findUnplaced). Answers the
 * fields' raw readings and the fields two readers agreed on.
 */
export async function readDigitsAgain(
  card: CardLines,
  layout: CardLayout,
  raw: Partial<Record<IdCardField, RawField>>,
  normal: NormalisedCard,
  words: readonly CardWord[] = [],
  second?: LineRecogniser,
): Promise<{ raw: Partial<Record<IdCardField, RawField>>; agreed: IdCardField[] }> {
  let net: Partial<Record<IdCardField, RawField>>;
  const fields = doubtfulDigitFields(layout, normal, card.anchored);
  try {
    net = await readDigitFields(card, fields);
  } catch {
    // The network's model missing or unloadable: Tesseract's readings stand.
    return { raw, agreed: [] };
  }
  // A date the network could not read on its crop: Tesseract may have placed its words inside it (the crop then
  // cuts its first digits off), so its whole detected line is read, label and all, and the date taken from it;
  // not when that line starts where the crop does (the same pixels would be read again).
  const startsEarlier = (f: IdCardField) => digitLineBox(card.anchored[f]!, card.lines, 'line').x < digitLineBox(card.anchored[f]!, card.lines).x;
  const dates = fields.filter((f) => f !== 'id' && !confirmed(valueWith(layout, raw, f, net[f])) && startsEarlier(f));
  if (dates.length > 0) {
    const whole = await readDigitFields(card, dates, recogniseLines, 'line');
    for (const f of dates) if (confirmed(valueWith(layout, raw, f, whole[f]))) net[f] = whole[f];
  }
  const third = second ? await readDigitFields(card, unconfirmed(layout, raw, net, fields), quietly(second)) : {};
  const combined = combineDigits(layout, raw, net, third);
  const found = await findUnplaced(card, layout, combined.raw, words, second);
  return { raw: { ...combined.raw, ...found }, agreed: combined.agreed };
}
