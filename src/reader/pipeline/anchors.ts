/**
 * Layout-free reading: the words of the whole card (one OCR call) are grouped
 * into text lines by geometry, the printed labels of the document model
 * (documents/<kind>/) are found among them accent-insensitively and fuzzily, and
 * each field's value is what follows its label on the same line, then the
 * lines below that start where the label (or the value) starts, up to the next
 * label, a printed heading, a wide gap or the field's line limit. No
 * coordinate of a particular layout is used, and a word that is part of a
 * label or heading is never part of a value.
 */
import type { Box, IdCardField } from '../layouts.js';
import type { DocumentModel, FieldSpec } from '../documents/model.js';
import type { OcrWord } from './ocr.js';
import { normaliseName, plausibleName } from './fields.js';
import { foldKey, levenshtein } from './text.js';

/** A word in flat-card pixels: an OCR word without its line key. */
export type CardWord = Omit<OcrWord, 'line'>;

/** One printed text line (words side by side, no wide gap between them). */
export interface Segment {
  words: CardWord[];
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Median word height: the line's letter size. */
  size: number;
}

/** A label (or heading) found: the words [start, end) of one segment. `F`: the document's field names. */
export interface LabelHit<F extends string = IdCardField> {
  /** The field it labels, or undefined for a heading/stop text. */
  field?: F;
  label: string;
  segment: number;
  start: number;
  end: number;
  /** Edit distance between the words read and the label, accents and punctuation aside. */
  distance: number;
  box: Box;
  /** Only the label's start was read (its end lost or set apart on the row): its value is looked for below it only. */
  partial?: boolean;
}

export interface AnchoredValue<F extends string = IdCardField> {
  words: CardWord[];
  /** The value's words line by line, and each line's box. */
  lines: CardWord[][];
  lineBoxes: Box[];
  /** Where the value lies on the card (all its lines). */
  box: Box;
  label: LabelHit<F>;
  /** Found by its shape from a reading that took letters for digits: no answer of 80 or more on its own. */
  unsure?: boolean;
}

/** Whether two spans of rows (top, bottom) lie on one line: they overlap by more than half the shorter's height. */
function level(a: { top: number; bottom: number }, b: { top: number; bottom: number }): boolean {
  return Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5 * Math.min(a.bottom - a.top, b.bottom - b.top);
}

/** A box's span of rows. */
const rowsOf = (b: Box) => ({ top: b.y, bottom: b.y + b.h });

function boxOf(words: CardWord[]): Box {
  const x = Math.min(...words.map((w) => w.left));
  const y = Math.min(...words.map((w) => w.top));
  return { x, y, w: Math.max(...words.map((w) => w.left + w.width)) - x, h: Math.max(...words.map((w) => w.top + w.height)) - y };
}

/**
 * OCR words of a card image read at `scale` (offset by the image's margin) back to flat-card pixels, a word
 * OCR glued together split where one printed word ends and the next begins (the box shared by letter count):
 * after a colon ("tên:NGUYỄN", a label's end glued to the value), after a slash before a capital
 * ("đến/Date", the two halves of a bilingual label), and between a small letter and a capital ("expiryXóm":
 * a label's last word glued to the value beside it; no Vietnamese or English word on a card has a capital
 * after a small letter).
 */
export function toCardWords(words: OcrWord[], scale: number, margin = 0): CardWord[] {
  const out: CardWord[] = [];
  for (const w of words) {
    const base = { conf: w.conf, top: w.top / scale - margin, height: w.height / scale };
    const left = w.left / scale - margin;
    const width = w.width / scale;
    const pieces = w.text.split(GLUED).filter((p) => p.length > 0);
    let at = 0;
    for (const piece of pieces) {
      const start = left + (width * at) / w.text.length;
      at += piece.length;
      out.push({ ...base, text: piece, left: start, width: (width * piece.length) / w.text.length });
    }
  }
  return out;
}

/** Where a word OCR glued together splits (see toCardWords). */
const GLUED = /(?<=^[^:;]+[:;])(?=[\p{L}\p{N}])|(?<=\p{L}\/)(?=\p{Lu})|(?<=\p{Ll})(?=\p{Lu})/u;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Groups words into printed lines: a word joins the line whose last word ends
 * just before it (a gap under ~2.2 letter heights) and overlaps it vertically
 * by more than half; anything further is another line (a second column, the
 * expiry date under the portrait beside an address line).
 */
export function segmentLines(words: CardWord[]): Segment[] {
  const sorted = words.filter((w) => w.width > 0 && w.height > 0).sort((a, b) => a.left - b.left);
  let lines = groupLines(sorted);
  // A mark off the portrait or the artwork read as a word twice as tall as the line's letters ("⁄" 44 px
  // beside a name 24 px tall) joins a line it does not belong to and stretches its box up over the label
  // above (the value was then taken for part of the label's row), or carries the next word onto the wrong
  // line: such words are set apart and the lines grouped again without them.
  const tall = new Set<CardWord>();
  for (const line of lines) {
    const sure = line.filter((w) => w.conf >= 60);
    if (line.length < 2 || sure.length === 0) continue;
    const ref = median(sure.map((w) => w.height));
    for (const w of line) if (w.conf < TALL_MARK_CONF && w.height > TALL_MARK * ref) tall.add(w);
  }
  if (tall.size > 0) lines = [...groupLines(sorted.filter((w) => !tall.has(w))), ...[...tall].map((w) => [w])];
  return lines
    .flatMap(splitRows)
    .map(segmentOf)
    .sort((a, b) => a.top - b.top || a.left - b.left);
}

/** A word this many times taller than its line's sure letters, read less surely than TALL_MARK_CONF, is a mark. */
const TALL_MARK = 1.6;
const TALL_MARK_CONF = 70;

/**
 * Two printed rows close together can be joined word by word into one line, their words interleaved
 * ("PHẠM NGÀY SINH THANH DATE HOA BIRTH": a name and the date-of-birth label under it), since a word is
 * compared with the line's last word only. Such a line is split where its words' vertical centres jump
 * by more than half a letter height (the smaller row's); marks much smaller than the letters ("-") go with the nearer row.
 */
export function splitRows(line: CardWord[]): CardWord[][] {
  if (line.length < 2) return [line];
  const h = median(line.map((w) => w.height));
  const centre = (w: CardWord) => w.top + w.height / 2;
  const letters = line.filter((w) => w.height >= 0.4 * h && /[\p{L}\p{N}]/u.test(w.text));
  const ys = letters.map(centre).sort((a, b) => a - b);
  let cut = -1;
  let jump = 0;
  for (let i = 1; i < ys.length; i++) if (ys[i] - ys[i - 1] > jump) [jump, cut] = [ys[i] - ys[i - 1], (ys[i] + ys[i - 1]) / 2];
  if (cut < 0) return [line];
  const upper = letters.filter((w) => centre(w) < cut);
  const lower = letters.filter((w) => centre(w) >= cut);
  // Measured against the smaller letters of the two: a label under a name is printed smaller.
  if (jump <= ROW_JUMP * Math.min(median(upper.map((w) => w.height)), median(lower.map((w) => w.height)))) return [line];
  const mid = (ws: CardWord[]) => median(ws.map(centre));
  const [mu, ml] = [mid(upper), mid(lower)];
  const up = line.filter((w) => (letters.includes(w) ? centre(w) < cut : Math.abs(centre(w) - mu) <= Math.abs(centre(w) - ml)));
  const down = line.filter((w) => !up.includes(w));
  return [up, down];
}

/** A jump in the words' centres larger than this many letter heights parts two rows. */
const ROW_JUMP = 0.5;

function groupLines(sorted: CardWord[]): CardWord[][] {
  const lines: CardWord[][] = [];
  for (const w of sorted) {
    let best: CardWord[] | undefined;
    let bestGap = Infinity;
    for (const line of lines) {
      const last = line[line.length - 1];
      const h = Math.max(8, Math.min(median(line.map((x) => x.height)), w.height * 1.6));
      const gap = w.left - (last.left + last.width);
      // Boxes that overlap (a wide bold word's box) are still one line; a wide gap is another column.
      if (w.left < line[0].left - 0.5 * h || gap > 2.2 * h) continue;
      const overlap = Math.min(last.top + last.height, w.top + w.height) - Math.max(last.top, w.top);
      if (overlap < 0.5 * Math.min(last.height, w.height)) continue;
      if (gap < bestGap) {
        bestGap = gap;
        best = line;
      }
    }
    if (best) best.push(w);
    else lines.push([w]);
  }
  return lines;
}

/** Edits a label may have and still count: none for the shortest ("Số"), one up to 11 letters, then one per six (eight mid-line). */
export function labelTolerance(key: string, midLine = false): number {
  if (key.length <= 3) return 0;
  // Up to 11 letters one slip only: "Nguyên quán" is two edits from "NGUYỄN VĂN", the commonest name start.
  if (key.length <= 11) return 1;
  // After a value on the same line, a label must be read nearly right.
  return Math.floor(key.length / (midLine ? 8 : 6));
}

interface Wording<F extends string> {
  field?: F;
  label: string;
  key: string;
}

function wordings<F extends string>(model: DocumentModel<F>): Wording<F>[] {
  const out: Wording<F>[] = [];
  for (const f of model.fields) for (const label of f.labels) out.push({ field: f.field, label, key: foldKey(label) });
  for (const label of model.stops) out.push({ label, key: foldKey(label) });
  return out.filter((w) => w.key.length > 0);
}

/** A short label ("Số", "Ngày") counts only with a value of its shape after it on the line: it is also an ordinary word. */
function shapeFollows(spec: FieldSpec<string> | undefined, rest: CardWord[]): boolean {
  const digits = rest
    .map((w) => w.text)
    .join('')
    .replace(/\D/g, '').length;
  if (!spec) return true;
  if (spec.style === 'digits') return digits >= 8;
  if (spec.style === 'date') return digits >= 6;
  return rest.length > 0;
}

/**
 * Finds the labels and headings of `model` in each line. At each word the
 * longest wording that matches the words from there (joined, accents and
 * punctuation aside, within its tolerance) wins; its words are consumed. A
 * short wording counts only at a line's start and with a value of its shape
 * after it; after a value has started on a line only long wordings count (a
 * "Số" inside an address is a word, "Quốc tịch" after the sex is a label).
 */
export function findLabels<F extends string>(segments: Segment[], model: DocumentModel<F>): LabelHit<F>[] {
  const all = wordings(model);
  const maxKey = Math.max(...all.map((w) => w.key.length));
  const specOf = (f?: F) => model.fields.find((s) => s.field === f);
  const hits: LabelHit<F>[] = [];
  segments.forEach((seg, si) => {
    const keys = seg.words.map((w) => foldKey(w.text));
    // Marks before a line's first real word (a fingerprint box's edge read as "9)||O)") do not make a label mid-line.
    const lead = seg.words.findIndex((w) => w.conf >= 50 && /\p{L}{2}|\p{N}/u.test(w.text));
    let i = 0;
    let valueStarted = false;
    while (i < seg.words.length) {
      let best: { w: Wording<F>; end: number; d: number } | undefined;
      let acc = '';
      for (let j = i; j < seg.words.length; j++) {
        acc += keys[j];
        if (!keys[i]) break; // a label starts with a letter
        if (acc.length > maxKey + 3) break;
        for (const w of all) {
          const tol = labelTolerance(w.key, valueStarted);
          if (Math.abs(acc.length - w.key.length) > tol) continue;
          if (w.key.length <= 4 && (i > Math.max(0, lead) || valueStarted)) continue;
          if (valueStarted && w.key.length < 7) continue;
          const d = levenshtein(acc, w.key);
          if (d > tol) continue;
          if (w.key.length <= 4 && !shapeFollows(specOf(w.field), seg.words.slice(j + 1))) continue;
          if (!best || w.key.length > best.w.key.length || (w.key.length === best.w.key.length && d < best.d)) best = { w, end: j + 1, d };
        }
      }
      if (best) {
        // A place's first word glued to the label's end at a mark ("residence'€hóm 9"): split off, it opens the value.
        const glued = specOf(best.w.field)?.style === 'address' ? splitLabelGlue(seg.words[best.end - 1], best.w.key) : undefined;
        if (glued) {
          seg.words.splice(best.end - 1, 1, ...glued);
          keys.splice(best.end - 1, 1, ...glued.map((w) => foldKey(w.text)));
        }
        // The label's box from its sure words: a mark glued on in front ("Z^") may be twice as tall.
        const all = seg.words.slice(i, best.end);
        const sure = all.filter((w) => w.conf >= 50 && /\p{L}/u.test(w.text));
        const ws = sure.length > 0 ? sure : all;
        const left = Math.min(...ws.map((w) => w.left));
        const top = Math.min(...ws.map((w) => w.top));
        hits.push({
          field: best.w.field,
          label: best.w.label,
          segment: si,
          start: i,
          end: best.end,
          distance: best.d,
          box: { x: left, y: top, w: Math.max(...ws.map((w) => w.left + w.width)) - left, h: Math.max(...ws.map((w) => w.top + w.height)) - top },
        });
        i = best.end;
        // What follows a label is its value: only a long label, read nearly right, may come after it on the
        // line. A heading ("NGÓN TRỎ PHẢI") has no value: a label may follow it as at a line's start.
        if (best.w.field) valueStarted = true;
      } else {
        if (keys[i] && i >= lead) valueStarted = true;
        i++;
      }
    }
  });
  // A label whose end OCR lost or set apart ("Nơi ĐKHK" | "rờng trú": "thường" read late, beyond a wide gap):
  // a line that is nothing but the start of one field's wording, seven letters or more, that no other
  // wording starts with, is that field's label, for a field no line labelled.
  segments.forEach((seg, si) => {
    if (hits.some((h) => h.segment === si)) return;
    const lead = Math.max(
      0,
      seg.words.findIndex((w) => w.conf >= 50 && /\p{L}{2}/u.test(w.text)),
    );
    const acc = seg.words
      .slice(lead)
      .map((w) => foldKey(w.text))
      .join('');
    // Labels print in lower case after their capital; a name in capitals ("NGUYỄN QUÂN") is no label's start.
    if (acc.length < 7 || !/\p{Ll}/u.test(seg.words[lead].text)) return;
    const starts = all.filter((w) => w.key.length >= acc.length + 3 && levenshtein(acc, w.key.slice(0, acc.length)) <= (acc.length >= 10 ? 1 : 0));
    const fields = new Set(starts.map((w) => w.field));
    const field = starts[0]?.field;
    if (fields.size !== 1 || !field || hits.some((h) => h.field === field)) return;
    const ws = seg.words.slice(lead);
    const box = boxOf(ws);
    const label = starts.reduce((a, b) => (b.key.length < a.key.length ? b : a));
    hits.push({ field, label: label.label, segment: si, start: lead, end: seg.words.length, distance: label.key.length - acc.length, box, partial: true });
  });
  // One anchor per field: the closest match, then the first from the top. A number's label with no number of an
  // id's length after it on its line (a damaged expiry label read as "Số" before a garbled date) comes after one
  // that has it ("Số / No." read with a slip before the id).
  const chosen = new Map<F, LabelHit<F>>();
  const numberAfter = (h: LabelHit<F>) => segments[h.segment].words.slice(h.end).some((w) => /\d{9}/.test(w.text));
  for (const h of hits) {
    if (!h.field) continue;
    const c = chosen.get(h.field);
    const unshaped = (x: LabelHit<F>) => (specOf(x.field)?.style === 'digits' && !numberAfter(x) ? 1 : 0);
    const score = (x: LabelHit<F>) => unshaped(x) + x.distance / Math.max(1, foldKey(x.label).length);
    if (!c || score(h) < score(c)) chosen.set(h.field, h);
  }
  return hits.filter((h) => !h.field || chosen.get(h.field) === h);
}

/**
 * A line's leading words that end before the label starts and stand apart from the rest of the line by more
 * than a letter height are another column's (a mark off the portrait read beside the name: "Z^ VŨ BẢO HẰNG"):
 * dropped. Words of the value itself are a space apart, however far left the value was printed.
 */
export function strayColumnLead(lead: CardWord[], labelLeft: number, size: number): CardWord[] {
  let k = 0;
  while (k < lead.length - 1 && lead[k].left + lead[k].width < labelLeft && lead[k + 1].left - (lead[k].left + lead[k].width) > size) k++;
  return k === 0 ? lead : lead.slice(k);
}

/** Continuation lines must start within this many card pixels of the label's or the value's left edge. */
const ALIGN = 45;

/** What the value stages of one card share: its lines, labels and model, and the lines values already took. */
interface ValueContext<F extends string> {
  segments: Segment[];
  hits: LabelHit<F>[];
  model: DocumentModel<F>;
  /** Lines already part of a value: another field never takes them. */
  used: Set<number>;
  /** The labels of segment `si`, left to right. */
  hitsIn: (si: number) => LabelHit<F>[];
  /** The words of segment `si` that are no label: those before its first label, or all. */
  freeLead: (si: number) => CardWord[];
  /** Two words or more that spell the start of a label, six letters at least. */
  labelStart: (ws: CardWord[]) => boolean;
}

function valueContext<F extends string>(segments: Segment[], hits: LabelHit<F>[], model: DocumentModel<F>): ValueContext<F> {
  const hitsIn = (si: number) => hits.filter((h) => h.segment === si).sort((a, b) => a.start - b.start);
  const freeLead = (si: number) => {
    const first = hitsIn(si)[0];
    return first ? segments[si].words.slice(0, first.start) : segments[si].words;
  };
  const keys = wordings(model).map((w) => w.key);
  const labelStart = (ws: CardWord[]) => {
    const k = foldKey(ws.map((w) => w.text).join(''));
    return ws.length >= 2 && k.length >= 6 && keys.some((key) => key.startsWith(k));
  };
  return { segments, hits, model, used: new Set<number>(), hitsIn, freeLead, labelStart };
}

/**
 * Each anchored field's value: the words after its label on the same line (up
 * to the next label there), then the lines below that start where the label or
 * the value starts, until a line that starts with a label or heading, a gap
 * wider than a line, or the field's line limit.
 */
export function assignValues<F extends string>(segments: Segment[], hits: LabelHit<F>[], model: DocumentModel<F>): Partial<Record<F, AnchoredValue<F>>> {
  const out: Partial<Record<F, AnchoredValue<F>>> = {};
  const ctx = valueContext(segments, hits, model);
  const take = (spec: FieldSpec<F>, h: LabelHit<F>, words: CardWord[], next: LabelHit<F> | undefined) => {
    const value = valueWithLinesBelow(ctx, spec, h, words, next);
    if (value) out[spec.field] = value;
  };
  // First the values that start on their label's own line; then the labels with nothing after them,
  // whose value may lie beyond a wide gap on their row, among the lines no value took.
  const later: [FieldSpec<F>, LabelHit<F>][] = [];
  for (const spec of model.fields) {
    const h = hits.find((x) => x.field === spec.field);
    if (!h) continue;
    const next = ctx.hitsIn(h.segment).find((x) => x.start >= h.end);
    const words = wordsBesideLabel(segments, spec, h, next);
    if (words.length === 0 && !next) later.push([spec, h]);
    else take(spec, h, words, next);
  }
  for (const [spec, h] of later) {
    const beyond = wordsBeyondGap(ctx, h);
    // Pieces beyond the gap of another shape are another field's (the sex's label right of the date's), not its value.
    if (beyond.length > 0 && !besideShape(spec, beyond)) ctx.segments.forEach((seg, i) => seg.words.some((w) => beyond.includes(w)) && ctx.used.delete(i));
    take(spec, h, besideShape(spec, beyond) ? beyond : [], undefined);
  }
  dropTwinLines(out, model);
  return out;
}

/** Words of a line read twice must match when read at least this surely. */
const TWIN_SURE = 60;

/**
 * A row read twice (the detector's line and the rows' own reading of it, both among the card's words) can be taken
 * by two places: as the lower label's value and as a further line of the place above it. A further line of a place
 * whose every word has a twin in a lower label's place value (the same text, level with it) is that place's.
 */
export function dropTwinLines<F extends string>(out: Partial<Record<F, AnchoredValue<F>>>, model: DocumentModel<F>): void {
  const places = model.fields.filter((s) => s.style === 'address' && out[s.field]).map((s) => out[s.field]!);
  // The same text, or one letter apart in a word of three or more ("Chău" / "Châu": two readings of one print).
  const sameText = (a: string, b: string) => a === b || (foldKey(a).length >= 3 && levenshtein(foldKey(a), foldKey(b)) <= 1);
  const twin = (w: CardWord, others: readonly CardWord[]) =>
    others.some((o) => {
      const h = Math.max(w.height, o.height);
      return sameText(w.text, o.text) && Math.abs(o.top + o.height / 2 - (w.top + w.height / 2)) < h && Math.abs(o.left + o.width / 2 - (w.left + w.width / 2)) < h;
    });
  // Every word read surely has its twin (marks read unsurely beside a line differ between readings).
  const twinLine = (line: readonly CardWord[], others: readonly CardWord[]) => {
    const sure = line.filter((w) => w.conf >= TWIN_SURE);
    return sure.length > 0 && sure.every((w) => twin(w, others));
  };
  for (const upper of places) {
    for (const lower of places) {
      if (lower === upper || lower.label.box.y <= upper.label.box.y) continue;
      const kept = upper.lines.filter((line, i) => i === 0 || !twinLine(line, lower.words));
      if (kept.length === upper.lines.length) continue;
      upper.lines = kept;
      upper.words = kept.flat();
      upper.lineBoxes = kept.map(boxOf);
      upper.box = boxOf(upper.words);
    }
  }
}

/** The words after the label on its own line, up to the next label there. */
function wordsBesideLabel<F extends string>(segments: Segment[], spec: FieldSpec<F>, h: LabelHit<F>, next: LabelHit<F> | undefined): CardWord[] {
  const words = segments[h.segment].words.slice(h.end, next ? next.start : undefined);
  return besideShape(spec, words) ? words : [];
}

/**
 * Whether words on a label's row can be its value. A date or number has digits: words without any are what is
 * left of the label ("/ Da ø epwy:"), and so are a few digits among them ("(2sep oể hi:" of "/ Date of birth:"):
 * a date has eight, an id nine or more; the value is then on the next line. A name is printed in capitals:
 * lower-case words after its label are the label's English half read badly ("Fi name", "Eư0 na/ne" of
 * "/ Full name").
 */
function besideShape(spec: FieldSpec<string>, words: readonly CardWord[]): boolean {
  if (spec.style === 'date' || spec.style === 'digits') return words.map((w) => w.text.replace(/\D/g, '')).join('').length >= MIN_VALUE_DIGITS;
  if (spec.style === 'name') return capitalised(words);
  return true;
}

/** Digits a date or number beside its label has at least (a date eight, read with a slip or two). */
const MIN_VALUE_DIGITS = 4;

/** Whether a word of two letters or more is written in capitals (names are printed so on every card). */
export function capitalised(words: readonly Pick<CardWord, 'text'>[]): boolean {
  return words.some((w) => {
    const letters = w.text.replace(/[^\p{L}]/gu, '');
    return letters.length >= 2 && letters === letters.toLocaleUpperCase('vi');
  });
}

/**
 * A wide gap after the label ("Date of birth:      28/01/1974") splits the printed line in two:
 * the lines to the right on the label's row, up to one that starts with a label.
 */
function wordsBeyondGap<F extends string>(ctx: ValueContext<F>, h: LabelHit<F>): CardWord[] {
  const { segments, used, freeLead } = ctx;
  const words: CardWord[] = [];
  const overlap = (x: Segment, b: Box) => Math.min(x.bottom, b.y + b.h) - Math.max(x.top, b.y);
  const centre = (top: number, bottom: number) => (top + bottom) / 2;
  // On the label's row: overlapping it by half the lower line's height; or, a value printed a little higher than
  // its smaller label (a card bent in the photo: "Nữ" a label height above "Giới tính / Sex:"), overlapping it at
  // all and nearer its middle than any other label's on its left. Not a place: a place's first line right of its
  // label and a little lower is the first of its lines, read with those below it (valueWithLinesBelow).
  const place = ctx.model.fields.find((s) => s.field === h.field)?.style === 'address';
  const onRow = (x: Segment) => {
    if (level(x, rowsOf(h.box))) return true;
    if (overlap(x, h.box) <= 0 || place) return false;
    const mid = centre(x.top, x.bottom);
    const row = centre(h.box.y, h.box.y + h.box.h);
    const own = Math.abs(mid - row);
    // Labels of other rows only (the sex's label beside the nationality's is on the same row).
    return ctx.hits.every((o2) => {
      const c = centre(o2.box.y, o2.box.y + o2.box.h);
      return o2 === h || o2.box.x >= x.left || Math.abs(c - row) < 0.5 * h.box.h || Math.abs(mid - c) > own;
    });
  };
  const row = segments
    .map((x, i) => ({ x, i }))
    .filter(() => !h.partial)
    .filter(({ x, i }) => i !== h.segment && !used.has(i) && x.left > h.box.x + h.box.w - 5)
    .filter(({ x }) => onRow(x))
    .sort((a, b) => a.x.left - b.x.left);
  let unsure: { i: number; lead: CardWord[] } | undefined;
  for (const { i } of row) {
    const lead = freeLead(i);
    if (lead.length === 0) break;
    // A piece read wholly unsurely ("+1" at 26 by the card's edge) is a mark, not the value beyond a gap;
    // unless a sure piece follows it a space away: then it is the value's first word, read badly
    // ("NGUYÊN" at 39 before KHÁNH UYÊN).
    if (!lead.some((w) => w.conf >= 50)) {
      unsure = words.length === 0 ? { i, lead } : undefined;
      continue;
    }
    const end = unsure && Math.max(...unsure.lead.map((w) => w.left + w.width));
    if (unsure && end !== undefined && lead[0].left - end <= segments[i].size && lead[0].left > end - 0.5 * segments[i].size) {
      words.push(...unsure.lead);
      used.add(unsure.i);
    }
    unsure = undefined;
    words.push(...lead);
    used.add(i);
    if (lead.length < segments[i].words.length) break;
  }
  return words;
}

/** Whether segment `si` lies level with a label (not `h`) of `h`'s column that starts left of it, in another segment. */
function labelledRow<F extends string>(ctx: ValueContext<F>, h: LabelHit<F>, si: number): boolean {
  const s = ctx.segments[si];
  return ctx.hits.some(
    (x) =>
      x !== h &&
      x.segment !== si &&
      x.box.x > h.box.x - ALIGN &&
      x.box.x + x.box.w <= s.left + 5 &&
      level(rowsOf(x.box), s),
  );
}

/**
 * The pieces of segment `si`'s row on either side of it (those before it starting right of `minLeft`), each
 * within three letter heights of the next and holding no label: one printed line the detector broke at a gap
 * ("Phúc Than, Than" | "Uyên, Lai Châu"). They are marked used.
 */
function rowPieces<F extends string>(ctx: ValueContext<F>, si: number, minLeft: number): { before: CardWord[]; after: CardWord[] } {
  const { segments, used, freeLead, labelStart } = ctx;
  const s = segments[si];
  const row = segments.map((x, i) => ({ x, i })).filter(({ x, i }) => i !== si && !used.has(i) && level(x, s));
  const whole = (i: number) => {
    const lead = freeLead(i);
    return lead.length > 0 && lead.length === segments[i].words.length && !bilingualLabelLine(lead) && !labelStart(lead) && lead.some((w) => w.conf >= 60);
  };
  const after: CardWord[] = [];
  let end = s.right;
  for (const { x, i } of row.filter(({ x }) => x.left > s.right - 5).sort((a, b) => a.x.left - b.x.left)) {
    if (x.left - end > 3 * s.size) break;
    // A piece read wholly unsurely between them (a damaged end of the label, a mark) is stepped over.
    if (freeLead(i).length === x.words.length && !x.words.some((w) => w.conf >= 50)) {
      end = x.right;
      continue;
    }
    if (!whole(i)) break;
    after.push(...x.words);
    used.add(i);
    end = x.right;
  }
  const before: CardWord[][] = [];
  let start = s.left;
  for (const { x, i } of row.filter(({ x }) => x.right < s.left + 5 && x.left > minLeft).sort((a, b) => b.x.left - a.x.left)) {
    if (start - x.right > 3 * s.size || !whole(i)) break;
    before.unshift(x.words);
    used.add(i);
    start = x.left;
  }
  return { before: before.flat(), after };
}

/**
 * The value of label `h` from the words found on its row (`words`, taken over) and the lines below it that
 * continue it; undefined when nothing is left once the label's own leftovers are dropped.
 */
function valueWithLinesBelow<F extends string>(
  ctx: ValueContext<F>,
  spec: FieldSpec<F>,
  h: LabelHit<F>,
  words: CardWord[],
  next: LabelHit<F> | undefined,
): AnchoredValue<F> | undefined {
  const { segments, model, used, freeLead, labelStart } = ctx;
  const seg = segments[h.segment];
  // What is left of a label that OCR broke up ("hạn/Date", "ofexpiy") is label, not value.
  const tail = labelRemainder(model, spec.field, h.label);
  const leftover = (text: string) => !/[\p{L}\p{N}]/u.test(text) || isLabelPiece(text, tail);
  const place = spec.style === 'address';
  // A place's value may open with the rest of its label, words OCR split or misread ("Í Place of residence'T hôn"):
  // those words go, and a value word glued to the last of them at a mark is split off.
  const dropLabelRun = (ws: CardWord[]): number => {
    if (!place) return 0;
    const n = labelRunLength(ws, tail);
    const glued = n > 0 ? splitLabelGlue(ws[n - 1], tail) : ws.length > 0 ? splitLabelGlue(ws[0], tail) : undefined;
    if (glued) ws.splice(n > 0 ? n - 1 : 0, 1, ...glued);
    return n > 0 || glued ? (n > 0 ? n : 1) : 0;
  };
  const hadWords = words.length > 0;
  words.splice(0, dropLabelRun(words));
  while (words.length > 0 && leftover(words[0].text)) words.shift();
  // A place's label whose rest OCR read garbled beside it, with marks and stray letters between its pieces ("Ự r22C
  // PJace of ƠI OIlgc„ Origir"): everything up to the last piece of five letters or more among the first words is label.
  if (place) {
    let cut = -1;
    for (let i = 0; i < Math.min(words.length, LABEL_RUN_WORDS); i++) if (foldKey(words[i].text).length >= 5 && isLabelPiece(words[i].text, tail)) cut = i;
    words.splice(0, cut + 1);
  }
  // Nothing but the label's rest beside it ("Nơi thường trú I Place of"): the value may lie beyond a gap on its row.
  if (place && hadWords && words.length === 0 && !next) words.push(...rowPieces(ctx, h.segment, Infinity).after);
  // A place beside its label, broken by the detector at a gap, goes on in pieces to the right on the label's row.
  if (place && words.length > 0 && !next && words[words.length - 1] === seg.words[seg.words.length - 1]) words.push(...rowPieces(ctx, h.segment, Infinity).after);
  const valueLines: CardWord[][] = words.length > 0 ? [[...words]] : [];
  const beside = valueLines.length > 0;
  // Single-line values beside their label are done; others (or an empty label line) look below.
  let last: { top: number; bottom: number; size: number } = { top: h.box.y, bottom: h.box.y + h.box.h, size: seg.size };
  /** Where the value's lines (and its label) end on the right: a place's next line lies under them. */
  let right = Math.max(h.box.x + h.box.w, ...words.map((w) => w.left + w.width));
  const lefts = [h.box.x, ...(words.length ? [words[0].left] : [])];
  const rightLimit = next ? next.box.x : Infinity;
  for (let si = h.segment + 1; si < segments.length && valueLines.length < spec.maxLines; si++) {
    const s = segments[si];
    if (s.words.length === 0) continue;
    // Words of another column at the line's start are not part of it: not where it starts, not how high.
    const stray = s.words.length - strayColumnLead(s.words, h.box.x, s.size).length;
    const top = stray ? Math.min(...s.words.slice(stray).map((w) => w.top)) : s.top;
    // Where the line starts: its sure words' edge, or its first word's when that is a word of the line's
    // height read unsurely ("NGUYÊN" at 15 of NGUYỄN THU NGÂN, which the sure edge leaves out).
    const first = s.words[stray];
    const wordLike = first.text.replace(/[^\p{L}\p{N}]/gu, '').length >= 2 && first.height >= 0.6 * s.size && first.height <= 1.6 * s.size;
    const left = stray || wordLike ? Math.min(first.left, stray ? Infinity : s.left) : s.left;
    // Same line band (another column): its top above the last line's bottom; for a place, also most of the smaller
    // of the two level with the other (the detector's line boxes are tall: the next row's may reach a third into
    // this one's, and the address's second line was lost). A name line whose middle is below the label's bottom is
    // the name however far the label's box reaches down (a detected label line as tall as the name's capitals under it).
    const overlap = Math.min(s.bottom, last.bottom) - Math.max(top, last.top);
    const nameBelow = spec.style === 'name' && valueLines.length === 0 && (top + s.bottom) / 2 > last.bottom;
    if (top < last.bottom - 0.3 * last.size && (!place || overlap > 0.5 * Math.min(s.bottom - top, last.bottom - last.top)) && !nameBelow) continue;
    if (top - last.bottom > 1.25 * Math.max(last.size, s.size)) break;
    // The first value line under a label starts where the label does, or lies under it (a centred heading).
    // Under it means a good part of it (a quarter of the shorter): the expiry's label, ending a few pixels past
    // the start of the address label above it (a mark read before "Nơi"), is not under that label.
    const under = valueLines.length === 0 && Math.min(s.right, h.box.x + h.box.w) - Math.max(left, h.box.x) > 0.25 * Math.min(s.right - left, h.box.w);
    // A place's next line may be printed centred or indented (the 2016 card: "Tỉnh Lai Châu" under the middle
    // of the line above): any line that starts right of the label's start and left of where the lines above
    // end continues it, when it holds a word read surely.
    // A label with nothing beside it ("Nơi thường trú:" alone) may have its first line printed right of it, a
    // little lower (its top still above the label's bottom).
    const besideBelow = valueLines.length === 0 && left >= h.box.x + h.box.w - 5 && top < h.box.y + h.box.h;
    const indented = place && left > h.box.x - ALIGN && (left < right || besideBelow);
    if (!under && !indented && !lefts.some((x) => Math.abs(left - x) <= ALIGN)) continue;
    // A place's line holds a word read surely: a row of background pattern read as marks is not one, and does
    // not hide the line under it.
    if (place && !s.words.some((w) => w.conf >= 60 && w.text.replace(/[^\p{L}\p{N}]/gu, '').length >= 2)) continue;
    if (left >= rightLimit || used.has(si)) continue;
    // A line level with another label of the labels' column, left of it, is that label's value beyond a gap
    // ("Nơi thường trú / Place of residence:      Khu phố 4, ..." under the home): the place ends above it.
    if (place && labelledRow(ctx, h, si)) break;
    const lead = freeLead(si).slice(stray);
    if (lead.length === 0) break; // the line starts with a label or heading
    // A label OCR read only part of: its end lost ("Ngày, tháng" of "Ngày, tháng, năm cấp") or its start
    // ("ký khai nh / Plac" of "Nơi đăng ký khai sinh / Place of birth").
    if (bilingualLabelLine(lead) || labelStart(lead)) break;
    if (!lead.some((w) => /[\p{L}\p{N}]/u.test(w.text))) continue; // marks only ("-", "~"): artwork, not a line
    // A name is printed in capitals: a line in lower case ("birth:", a label's English half) is not it.
    if (spec.style === 'name' && !capitalised(lead)) continue;
    // One character alone ("Ì" left of an address line, a little higher) is a mark: no value is one letter.
    if (lead.length === 1 && lead[0].text.replace(/[^\p{L}\p{N}]/gu, '').length <= 1) continue;
    // A name has no digits and only a date field takes a date: the date of birth beside its label, a little
    // higher than it and aligned with the name above, is not the name's second line.
    if (valueLines.length > 0 && spec.style !== 'date' && (spec.style === 'name' ? lead.some((w) => /\d/.test(w.text)) : isDateLine(lead))) continue;
    // A date or number is one line: a further line is another field.
    if ((spec.style === 'date' || spec.style === 'digits') && valueLines.length > 0) break;
    // A place's line the detector broke at a gap ("Phúc Than, Than" | "Uyên, Lai Châu"): the pieces right of it on
    // its row, a few letters apart, that start with no label.
    if (place && lead.length === s.words.length) {
      const pieces = rowPieces(ctx, si, h.box.x - ALIGN);
      lead.unshift(...pieces.before);
      lead.push(...pieces.after);
    }
    words.push(...lead);
    valueLines.push(lead);
    lefts.push(lead[0].left);
    used.add(si);
    last = { top, bottom: s.bottom, size: s.size };
    right = Math.max(right, ...lead.map((w) => w.left + w.width));
    if (lead.length < s.words.length) break; // a label follows on that line: the value ends there
  }
  // The label's remainder may also open the first line taken from below ("Personal identification" under
  // "Đặc điểm nhân dạng /"): label, not value.
  if (!beside && valueLines.length > 0) {
    const first = valueLines[0];
    const before = first.slice();
    const n = dropLabelRun(first);
    if (n > 0) {
      const at = words.indexOf(before[0]);
      words.splice(at, before.length, ...first.slice(n));
      first.splice(0, n);
      if (first.length === 0) valueLines.shift();
    }
  }
  while (valueLines.length > 0 && valueLines[0].length > 0 && leftover(valueLines[0][0].text)) {
    const dropped = valueLines[0].shift()!;
    words.splice(words.indexOf(dropped), 1);
    if (valueLines[0].length === 0) valueLines.shift();
  }
  if (words.length === 0) return undefined;
  return { words, lines: valueLines, lineBoxes: valueLines.map(boxOf), label: h, box: boxOf(words) };
}

/** How many of a place's first words beside its label may still be what OCR left of the label. */
const LABEL_RUN_WORDS = 10;

/** The English halves of the bilingual labels, by their first letters (folded): what follows a slash in a label. */
const ENGLISH_LABEL_STARTS = ['plac', 'date', 'full', 'sex', 'nati', 'pers'];

/**
 * Words with a bilingual label's slash and English start ("/ Plac", "trú/Place"): a label line, whatever OCR
 * lost of its Vietnamese half. No value prints a slash before such a word.
 */
export function bilingualLabelLine(words: CardWord[]): boolean {
  const english = (t: string) => {
    const k = foldKey(t);
    return k.length >= 3 && ENGLISH_LABEL_STARTS.some((p) => k.startsWith(p.slice(0, Math.min(p.length, k.length))));
  };
  return words.some((w, i) => {
    const slash = w.text.lastIndexOf('/');
    if (slash < 0) return false;
    const after = w.text.slice(slash + 1);
    return after ? english(after) : i + 1 < words.length && english(words[i + 1].text);
  });
}

/** A printed date in one word ("25/09/2002"), its year. */
const DATE_WORD = /^\D{0,2}(\d{2})[/.-](\d{2})[/.-](\d{4})\D{0,2}$/;

/**
 * The id and the date of birth by their shape when their label was not found (unreadable, lost under the
 * artwork): the one word on the card, in no value and no label, that is a number of the id's length, and
 * the one such printed date, taken only when something confirms it is the date of birth: its year is the
 * one the 12-digit id carries, or it is the only date left on a card whose other date (the expiry) was
 * found, and earlier than it, or on a card that prints no other date. The expiry, the nationality, the sex and
 * the name likewise, by the words they are printed as (see below). Nothing is guessed when there are two candidates.
 */
export function valuesByShape(
  segments: Segment[],
  hits: LabelHit[],
  values: Partial<Record<IdCardField, AnchoredValue>>,
  model: DocumentModel<IdCardField>,
  idLength: 9 | 12,
): Partial<Record<IdCardField, AnchoredValue>> {
  const out: Partial<Record<IdCardField, AnchoredValue>> = {};
  const taken = new Set(Object.values(values).flatMap((v) => v!.words));
  const free: { w: CardWord; si: number }[] = [];
  segments.forEach((seg, si) => {
    seg.words.forEach((w, k) => {
      if (taken.has(w) || hits.some((h) => h.segment === si && k >= h.start && k < h.end)) return;
      free.push({ w, si });
    });
  });
  const wants = (f: IdCardField) => model.fields.some((s) => s.field === f) && !values[f];
  const atWords = (ws: CardWord[]): AnchoredValue => {
    const box = boxOf(ws);
    const label: LabelHit = { label: '', segment: -1, start: 0, end: 0, distance: 0, box: { x: box.x, y: box.y, w: 0, h: box.h } };
    return { words: ws, lines: [ws], lineBoxes: [box], box, label };
  };
  const at = (w: CardWord) => atWords([w]);
  let id = values.id?.words
    .map((w) => w.text)
    .join('')
    .replace(/\D/g, '');
  if (wants('id')) {
    const shaped = free.filter(({ w }) => w.conf >= 50 && new RegExp(`^\\D{0,2}\\d{${idLength}}\\D{0,2}$`).test(w.text));
    if (shaped.length === 1) {
      out.id = at(shaped[0].w);
      id = shaped[0].w.text.replace(/\D/g, '');
    } else if (shaped.length === 0) {
      // One word of the id's length (or one more: a mark before it) with a letter or two OCR confuses with digits
      // ("D" for 0) under a damaged label, however unsurely read: the id's cross-checks and the recogniser decide
      // (unsure until the recogniser agrees).
      const mapped = free.filter(({ w }) => {
        const t = w.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
        const digits = t.replace(/\D/g, '').length;
        return w.conf >= 30 && (t.length === idLength || t.length === idLength + 1) && digits >= idLength - 2 && digits < idLength && /^[\dODQIlZSBG]+$/.test(t);
      });
      if (mapped.length === 1) out.id = { ...at(mapped[0].w), unsure: true };
    }
  }
  if (wants('dob')) {
    const dates = free.filter(({ w }) => w.conf >= 50 && DATE_WORD.test(w.text));
    const year = (w: CardWord) => Number(DATE_WORD.exec(w.text)![3]);
    const doe = values.doe?.words
      .map((w) => w.text)
      .join(' ')
      .match(/\d{4}/)?.[0];
    const fromId =
      id?.length === 12
        ? dates.filter(({ w }) => String(year(w)).slice(2) === id!.slice(4, 6) && Math.floor((year(w) - 1900) / 100) === Math.floor(Number(id![3]) / 2))
        : [];
    if (fromId.length === 1) out.dob = at(fromId[0].w);
    else if (id?.length !== 12 && dates.length === 1 && (doe ? year(dates[0].w) < Number(doe) : !model.fields.some((f) => f.field === 'doe'))) out.dob = at(dates[0].w);
  }
  // The nationality and the sex whose labels were not read ("Gaới lạnh Sex", "Quốc ((sề"): their values are words
  // the card prints nowhere else, as printed (a capital, then small letters with their marks): "Việt Nam" (the only
  // nationality a citizen's card prints; the headline's "VIỆT NAM" / "VIET NAM" is in capitals) and "Nữ" or "Nam"
  // standing alone (not after "Việt", not before another place name's word: "Nam Định"). One candidate only.
  // Neighbours on the line among all free words; the candidates themselves read surely (>= 60).
  const next = (k: number) => (free[k + 1]?.si === free[k].si ? free[k + 1].w : undefined);
  const prev = (k: number) => (free[k - 1]?.si === free[k].si ? free[k - 1].w : undefined);
  const sure = (w: CardWord | undefined) => w !== undefined && w.conf >= 60;
  const word = (w: CardWord | undefined) => w?.text.replace(/[^\p{L}]/gu, '') ?? '';
  if (wants('nationality')) {
    const pairs = free.flatMap(({ w }, k) => (sure(w) && sure(next(k)) && word(w) === 'Việt' && word(next(k)) === 'Nam' ? [[w, next(k)!]] : []));
    if (pairs.length === 1) out.nationality = atWords(pairs[0]);
  }
  if (wants('sex')) {
    // A neighbour is a word a space away (a space is a third to a half of a letter height; 0.7 of the smaller word's
    // height at most): "Nam" a column before "Quốc tịch" is alone.
    const near = (a: CardWord | undefined, b: CardWord | undefined) =>
      a !== undefined && b !== undefined && Math.max(a.left, b.left) - Math.min(a.left + a.width, b.left + b.width) <= 0.7 * Math.min(a.height, b.height);
    // A piece of the sex's label ("Sex", "Sez:", however unsure) is no place name's word.
    const labelPiece = (w: CardWord) => foldKey(w.text).length === 3 && levenshtein(foldKey(w.text), 'sex') <= 1;
    const placeWord = (w: CardWord | undefined) => w !== undefined && /^\p{Lu}\p{Ll}/u.test(word(w)) && !labelPiece(w);
    const standsAlone = (k: number) => word(prev(k)) !== 'Việt' && !(near(free[k].w, next(k)) && placeWord(next(k))) && !(near(free[k].w, prev(k)) && placeWord(prev(k)));
    const alone = free.filter(({ w }, k) => sure(w) && ['Nữ', 'Nam'].includes(word(w)) && standsAlone(k));
    if (alone.length === 1) out.sex = atWords([alone[0].w]);
    else if (alone.length === 0) {
      // Read without its marks or unsurely ("Nư" at 22, "Nu"): its letters still spell one of the two values. Taken
      // when it is the only such word and read surely, or when a piece of the sex's label ("Sex", "Sez:") stands
      // above it or before it on its row. Its spelling is not the value's: the answer stays unconfirmed (fields.ts).
      const byLabel = (v: CardWord) =>
        free.some(({ w }) => labelPiece(w) && w.top < v.top + v.height / 2 && v.top - (w.top + w.height) <= 2 * v.height && w.left < v.left + v.width + 2 * v.height && v.left < w.left + w.width + 6 * v.height);
      const spelled = (w: CardWord) => /^[\p{L}]{2,3}[.,:]?$/u.test(w.text) && ['nu', 'nam'].includes(foldKey(w.text)) && /^\p{Lu}/u.test(w.text);
      const weak = free.filter(({ w }, k) => w.conf >= 20 && spelled(w) && standsAlone(k));
      if (weak.length === 1 && (sure(weak[0].w) || byLabel(weak[0].w))) out.sex = atWords([weak[0].w]);
    }
  }
  // The name whose label was not read ("lọ, chứ #4 và tên khai s29:"): the one line left in capitals that is a
  // name (a family name first, Vietnamese syllables, a given name last), read surely.
  if (wants('name')) {
    const isFree = new Set(free.map((f) => f.w));
    const names = segments
      .map((seg) => seg.words)
      .filter((ws) => ws.every((w) => isFree.has(w) && w.conf >= 60 && capitalised([w])) && plausibleName(normaliseName(ws.map((w) => w.text).join(' '))));
    if (names.length === 1) out.name = atWords(names[0]);
  }
  if (wants('doe')) {
    // The expiry date whose label was not read (real chip fronts print it small, bottom left under the portrait):
    // the one other date on the card, at least ten years after the birth date.
    const dob = (out.dob ?? values.dob)?.words
      .map((w) => w.text)
      .join(' ')
      .match(/\d{4}/)?.[0];
    const later = dob
      ? free.filter(({ w }) => w.conf >= 50 && DATE_WORD.test(w.text) && Number(DATE_WORD.exec(w.text)![3]) >= Number(dob) + 10 && !out.dob?.words.includes(w))
      : [];
    if (later.length === 1) out.doe = at(later[0].w);
  }
  return out;
}

/** A line that is a printed date and nothing else ("25/09/2002"). */
function isDateLine(words: CardWord[]): boolean {
  return /^\d{1,2}\s?[/.-]\s?\d{1,2}\s?[/.-]\s?\d{4}$/.test(
    words
      .map((w) => w.text)
      .join(' ')
      .trim(),
  );
}

/**
 * What a longer wording of the field prints after the wording found ("/ Date of expiry" after "Ngày, tháng, năm
 * hết hạn"), as a key: OCR may have cut the label there, and those words are label, not value.
 */
function labelRemainder<F extends string>(model: DocumentModel<F>, field: F, found: string): string {
  const key = foldKey(found);
  const spec = model.fields.find((f) => f.field === field);
  return (spec?.labels ?? [])
    .map(foldKey)
    .filter((k) => k.startsWith(key))
    .map((k) => k.slice(key.length))
    .reduce((a, b) => (b.length > a.length ? b : a), '');
}

/**
 * A word of three letters or more that occurs in the label (one slip allowed from six letters, or from four
 * when it opens with a slash: the English half of a bilingual label, "/Phạce" of "/ Place of residence").
 */
export function isLabelPiece(text: string, labelKey: string): boolean {
  const k = foldKey(text);
  if (!labelKey) return false;
  if (k.length < 3 || /\d/.test(k)) return false;
  if (labelKey.includes(k)) return true;
  if (k.length < (/^\s*\//.test(text) ? 4 : 6)) return false;
  for (let i = 0; i + k.length - 1 <= labelKey.length; i++) {
    for (const len of [k.length - 1, k.length, k.length + 1]) if (i + len <= labelKey.length && levenshtein(k, labelKey.slice(i, i + len)) <= 1) return true;
  }
  return false;
}

/** Edit distance from `needle` to the closest run of letters anywhere in `hay` (approximate substring search). */
export function substringDistance(needle: string, hay: string): number {
  let prev = new Array<number>(hay.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hay.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (needle[i - 1] === hay[j - 1] ? 0 : 1));
    prev = cur;
  }
  return Math.min(...prev);
}

/**
 * How many of a value's first words are what OCR left of its label beyond the wording found (`tailKey`, the
 * rest of a longer wording: "Piace of" of "/ Place of origin" after "Quê quán"), a stray mark before them
 * included ("Í Place of residence"): their letters joined spell a piece of it, four letters exactly or one
 * slip per six letters. The longest run read closest wins; 0 when the value starts with no such run.
 */
export function labelRunLength(words: readonly { text: string }[], tailKey: string): number {
  if (!tailKey) return 0;
  let best = { n: 0, d: Infinity };
  let acc = '';
  for (let n = 1; n <= Math.min(words.length, 6); n++) {
    acc += foldKey(words[n - 1].text);
    if (acc.length > tailKey.length + 2) break;
    if (acc.length < 4) continue;
    const d = substringDistance(acc, tailKey);
    if (d <= Math.floor(acc.length / 6) && d <= best.d) best = { n, d };
  }
  return best.n;
}

/**
 * A word that is a label's end glued to the value's first word at a mark ("residence'€hóm", "residene'hu"):
 * the two, the value's part a word of its own (its box the share of its letters); undefined for any other word.
 */
export function splitLabelGlue(word: CardWord, labelKey: string): [CardWord, CardWord] | undefined {
  const m = /^(\p{L}{3,})([^\p{L}\p{N}\s]+)(\p{L}[\p{L}\p{N}]*[,.;]?)$/u.exec(word.text);
  if (!m || !isLabelPiece(m[1], labelKey) || isLabelPiece(m[3], labelKey)) return undefined;
  const cut = Math.round((word.width * (m[1].length + m[2].length)) / word.text.length);
  return [
    { ...word, text: m[1] + m[2], width: cut },
    { ...word, text: m[3], left: word.left + cut, width: word.width - cut },
  ];
}

/**
 * Splits a line that OCR ran on from one column into the next where a label
 * with nothing after it stands right above: the words from the one under that
 * label's start on belong to its value ("Có giá trị đến: | Số 101 Trần Hưng
 * Đạo" under "Nơi thường trú:"), not to the line's own label. With the card's
 * `model`, a label whose value may take several lines and started beside it
 * splits such a line too, at a word after a gap that starts under the label or
 * under its value ("Có giá trị đến: 28/06/2022   Lương, Huyện Cái Bè" under
 * "Nơi thường trú: Số 173 Trần Hưng Đạo, Xã Mỹ"). Returns the segments
 * unchanged when there is nothing to split.
 */
export function splitUnderLabels<F extends string>(segments: Segment[], hits: LabelHit<F>[], model?: DocumentModel<F>): Segment[] {
  const multiLine = (h: LabelHit<F>) => (model?.fields.find((f) => f.field === h.field)?.maxLines ?? 1) > 1;
  const open = hits.filter((h) => h.field && (h.end === segments[h.segment].words.length || multiLine(h)));
  if (open.length === 0) return segments;
  let changed = false;
  const out: Segment[] = [];
  for (const [si, seg] of segments.entries()) {
    let cut = -1;
    // Only a line that starts with a label of its own ran on: a value line under a centred heading is whole.
    const own = hits.find((x) => x.segment === si && x.field);
    if (!own) {
      out.push(seg);
      continue;
    }
    for (const h of open) {
      const below = seg.top - (h.box.y + h.box.h);
      if (below < -0.3 * seg.size || below > 1.5 * Math.max(seg.size, h.box.h)) continue;
      if (seg.left >= h.box.x - ALIGN) continue; // the line starts in the label's column: nothing to split
      if (h.end === segments[h.segment].words.length) {
        // Under the label's box (its sure words) or its first word (an unsure "Nơi" at 30 left of it).
        const starts = [h.box.x, segments[h.segment].words[h.start].left];
        const k = seg.words.findIndex((w, i) => i >= own.end && starts.some((x) => Math.abs(w.left - x) <= 25));
        if (k > 0) cut = cut < 0 ? k : Math.min(cut, k);
        continue;
      }
      // A value beside its label continues below it (an address): at the label's or the value's left edge,
      // where the line's own value ends: after a gap wider than a letter, or a step up or down (the two
      // columns' rows are not quite level).
      const lefts = [h.box.x, segments[h.segment].words[h.end].left];
      const centre = (w: CardWord) => w.top + w.height / 2;
      const k = seg.words.findIndex((w, i) => {
        if (i <= own.end || !lefts.some((x) => Math.abs(w.left - x) <= 25)) return false;
        const prev = seg.words[i - 1];
        return w.left - (prev.left + prev.width) > 0.8 * seg.size || Math.abs(centre(w) - centre(prev)) > 0.3 * seg.size;
      });
      if (k > 0) cut = cut < 0 ? k : Math.min(cut, k);
    }
    if (cut < 0) {
      out.push(seg);
      continue;
    }
    changed = true;
    out.push(segmentOf(seg.words.slice(0, cut)), segmentOf(seg.words.slice(cut)));
  }
  return changed ? out.sort((a, b) => a.top - b.top || a.left - b.left) : segments;
}

/** A line's extent from its sure words: a stray mark read off the portrait or emblem ("sa" at 4) does not move it. */
function segmentOf(ws: CardWord[]): Segment {
  const sure = ws.filter((w) => w.conf >= 30);
  const b = sure.length > 0 ? sure : ws;
  return {
    words: ws,
    left: Math.min(...b.map((w) => w.left)),
    top: Math.min(...b.map((w) => w.top)),
    right: Math.max(...b.map((w) => w.left + w.width)),
    bottom: Math.max(...b.map((w) => w.top + w.height)),
    size: median(b.map((w) => w.height)),
  };
}
