/**
 * Stage 7: `_prob` from Tesseract's word confidence combined with the
 * validators: a passing check (id cross-checks, gazetteer match, valid date)
 * raises it, a failing one lowers it. Values are 0-100.
 */
import type { FieldValue } from './fields.js';

export function fieldProbability(v: FieldValue): number {
  let p = Math.max(0, Math.min(100, v.conf)) / 100;
  if (v.valid) p = 1 - (1 - p) * 0.3;
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
