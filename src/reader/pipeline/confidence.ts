/**
 * Stage 7: `_prob` from Tesseract's word confidence combined with the
 * validators: a passing check (id cross-checks, gazetteer match, valid date)
 * raises it, a failing one lowers it. Values are 0-100.
 *
 * The rule: a value reaches 80 only when a validator checks what was printed (check digits, the 12-digit id's
 * digits against the printed date of birth and sex, a place of the official list read as the list spells it, a
 * real date read the same twice, a closed list spelled exactly, the QR code) or when two independent readers
 * agree. Everything else (OCR's confidence alone, a check of form only, readings that disagree) stays at 75 or less.
 */
import type { FieldValue } from './fields.js';

/** Highest probability of a value no validator confirmed: OCR's own confidence alone is not worth more. */
export const UNCONFIRMED_CAP = 0.75;

export function fieldProbability(v: FieldValue): number {
  let p = Math.max(0, Math.min(100, v.conf)) / 100;
  if (v.valid) p = 1 - (1 - p) * 0.3;
  // Tesseract is as sure of a word that lost its first letter as of a right one (measured: 94 for "ẹo"
  // for "Sẹo"): a value only OCR vouches for stays under 80.
  else p = Math.min(p, UNCONFIRMED_CAP);
  // Two readings that disagree (a name's tone marks): whichever was taken, a validator cannot vouch for it.
  if (v.unsure) p = Math.min(p, UNCONFIRMED_CAP);
  // A validator of form only (a name: a family name, Vietnamese syllables) passes a name that lost a word or read a
  // tone mark wrong, and Tesseract's two readings of it are not independent: the same engine on the same pixels
  // loses the same word and misreads the same mark (dev set: 4 of the 6 values wrong at 80 or more were names). So such a
  // value is sure only when another kind of reading (a QR code, another recogniser) gave the same value.
  if (v.formOnly) p = Math.min(p, UNCONFIRMED_CAP);
  if (v.invalid) p *= 0.6;
  return Math.round(p * 10000) / 100;
}

/** The mean of the probabilities of the fields read (0 when none was). */
export function overallScore(probs: number[]): number {
  if (probs.length === 0) return 0;
  return Math.round((probs.reduce((s, p) => s + p, 0) / probs.length) * 100) / 100;
}

/** "98.15": the string form the API answers. */
export const formatProb = (p: number) => p.toFixed(2);
