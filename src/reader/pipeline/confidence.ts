/**
 * Stage 7: `_prob` from Tesseract's word confidence combined with the
 * validators: a passing check (id cross-checks, gazetteer match, valid date)
 * raises it, a failing one lowers it. Values are 0-100.
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
