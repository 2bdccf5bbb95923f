/**
 * The passport holder's name: where its line is on the data page, and the name
 * built from the visual zone's readings word by word against the MRZ's
 * transliteration. The MRZ has the letters (no check digit, no accents); the
 * visual zone has the accents (and OCR that drops or garbles them). A word takes
 * its accents from a visual-zone reading whose letters are the MRZ word's; a word
 * no reading supports keeps the MRZ's bare letters, and the name then comes with
 * a low `_prob`, as it is certainly missing marks or unsure of its letters.
 */
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../../layouts.js';
import type { LabelHit } from '../../pipeline/anchors.js';
import { fixSurname, normaliseName, type FieldValue } from '../../pipeline/fields.js';
import { fold, levenshtein } from '../../pipeline/text.js';

export interface NameWord {
  text: string;
  conf: number;
}

/** Upper case ASCII letters of a word, as the MRZ writes it (Đ is D). */
export const mrzLetters = (s: string) =>
  fold(s)
    .toUpperCase()
    .replace(/[^A-Z ]/g, '');

const accented = (w: string) => w !== mrzLetters(w);

/** The words of one reading of the name line, normalised (upper case, marks kept, noise syllables dropped). */
export function nameWords(words: NameWord[]): NameWord[] {
  const out: NameWord[] = [];
  for (const w of words) for (const t of normaliseName(w.text).split(' ')) if (t) out.push({ text: t, conf: w.conf });
  return out;
}

/**
 * The name from the visual zone's readings (best first) and the MRZ's letters.
 * Per MRZ word, the candidates are the readings' words with the same letters:
 * a reading with marks beats one without (OCR drops marks far more often than it
 * invents them), then the reading agreed on by more readings, then the earlier one.
 * Every word supported: the MRZ confirms the letters (not the marks), so the name
 * stays unconfirmed (`_prob` at most 75). A word unsupported: the MRZ's bare
 * letters there (or a reading's word one letter away at the same place), and the
 * name marked unsure (`_prob` at most 45).
 * `truncated`: the MRZ's name field was full, so its last word may be cut short.
 */
export function nameFromZones(readings: NameWord[][], mrzName: string | undefined, truncated = false): FieldValue | undefined {
  const usable = readings.filter((r) => r.length > 0);
  if (!mrzName) {
    const best = usable[0];
    if (!best) return undefined;
    return { value: fixSurname(best.map((w) => w.text).join(' ')), conf: mean(best.map((w) => w.conf)), valid: false };
  }
  const mrzWords = mrzLetters(mrzName).split(' ').filter(Boolean);
  const chosen: NameWord[] = [];
  let supported = 0;
  mrzWords.forEach((m, i) => {
    const last = truncated && i === mrzWords.length - 1;
    const fits = (w: NameWord) => (last ? mrzLetters(w.text).startsWith(m) : mrzLetters(w.text) === m);
    const votes = new Map<string, { word: NameWord; readings: Set<number>; first: number }>();
    usable.forEach((r, k) => {
      for (const w of r.filter(fits)) {
        const v = votes.get(w.text) ?? { word: w, readings: new Set<number>(), first: k };
        v.readings.add(k);
        if (w.conf > v.word.conf) v.word = w;
        votes.set(w.text, v);
      }
    });
    const best = [...votes.values()].sort(
      (a, b) => Number(accented(b.word.text)) - Number(accented(a.word.text)) || b.readings.size - a.readings.size || a.first - b.first || b.word.conf - a.word.conf,
    )[0];
    if (best) {
      supported++;
      chosen.push(best.word);
      return;
    }
    // No reading has these letters. The MRZ has no check digit on the name and OCR doubles or drops its
    // letters too (VO read VOO): a reading of the same number of words one letter away at this place
    // is taken instead, and the name stays unsure either way.
    const near = usable
      .filter((r) => r.length === mrzWords.length && levenshtein(mrzLetters(r[i].text), m) === 1)
      .map((r) => r[i])
      .sort((a, b) => Number(accented(b.text)) - Number(accented(a.text)) || b.conf - a.conf)[0];
    chosen.push(near ?? { text: m, conf: 0 });
  });
  if (supported === mrzWords.length) {
    // A known family name read without its marks gets them back (as for any name the page shows).
    return { value: fixSurname(chosen.map((w) => w.text).join(' ')), conf: mean(chosen.map((w) => w.conf)), valid: false, invalid: false };
  }
  // Rebuilt from the MRZ: marks only on the words a reading supports.
  const conf = supported === 0 ? 60 : Math.min(75, mean(chosen.filter((w) => w.conf > 0).map((w) => w.conf)));
  return { value: chosen.map((w) => w.text).join(' '), conf, valid: false, invalid: true };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

/**
 * The band holding the name's line, label included (Tesseract keeps the small
 * label line apart from the name's when both are whole; a band cut just under
 * the label loses the capitals' marks, which rise above the letters). Its left
 * edge is the label column's (the labels of the left column start together; a
 * label read glued to the name's first word starts late), its bottom the
 * nationality label's top. With no name label found, the row above the
 * nationality label, one row step high.
 */
export function nameBand<F extends string>(hits: LabelHit<F>[], keys: { name: F; nationality: F; dob: F; column: F[] }): Box | undefined {
  const box = (f: F) => hits.find((h) => h.field === f)?.box;
  const name = box(keys.name);
  const nat = box(keys.nationality);
  const dob = box(keys.dob);
  const xs = [name, nat, ...keys.column.map(box)]
    .filter((b): b is Box => !!b)
    .map((b) => b.x)
    .sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const left = Math.max(0, xs[Math.floor((xs.length - 1) / 2)] - 10);
  // Rows are some 50 to 60 px apart on the flat page; a label's box height is no guide (marks, glued words).
  const row = (a: Box, b: Box | undefined) => (b && b.y - a.y > 0.05 * CARD_HEIGHT && b.y - a.y < 0.16 * CARD_HEIGHT ? b.y - a.y : undefined);
  let top: number;
  let bottom: number;
  if (name) {
    top = name.y - 3;
    bottom = name.y + (row(name, nat) ?? 0.09 * CARD_HEIGHT) - 1;
  } else if (nat) {
    top = Math.max(0, nat.y - (row(nat, dob) ?? 0.09 * CARD_HEIGHT) + 3);
    bottom = nat.y - 1;
  } else return undefined;
  return { x: left, y: top, w: CARD_WIDTH - 10 - left, h: bottom - top };
}
