import type { Features } from '../sources/source.js';

export const SCORECARD_FORMAT = 'saola-scorecard/1';

/**
 * One bin of a feature: values in [min, max) (null = unbounded), or the
 * values that are missing. `woe` is ln(share of goods / share of bads).
 */
export interface Bin {
  min: number | null;
  max: number | null;
  missing?: boolean;
  woe: number;
  good: number;
  bad: number;
}

export interface ScorecardFeature {
  name: string;
  /** Logistic-regression weight of the feature's WoE. */
  coefficient: number;
  /** Information value at training time. */
  iv: number;
  bins: Bin[];
}

export interface HoldoutMetrics {
  rows: number;
  auc: number;
  ks: number;
  brier: number;
}

/**
 * A scorecard: binned features, weight of evidence per bin, and a logistic
 * regression on the WoE values. P(repay) = sigmoid(intercept + sum(coef * woe)).
 */
export interface Scorecard {
  format: typeof SCORECARD_FORMAT;
  source: string;
  dltype: number;
  version: number;
  trained_time: string;
  /** Where the training rows came from, e.g. "synthetic population seed 7 (not real people)". */
  trained_on: string;
  train_rows: number;
  train_good: number;
  train_bad: number;
  holdout: HoldoutMetrics | null;
  intercept: number;
  features: ScorecardFeature[];
}

export interface Reason {
  feature: string;
  value: number | null;
  /** The bin the value fell in, as text: "[30, 90)", "missing". */
  bin: string;
  /** Contribution to the log-odds of repaying (coefficient x WoE): > 0 raises the score. */
  effect: number;
  direction: 'raises' | 'lowers';
}

export class ScorecardFormatError extends Error {}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const round = (x: number, digits: number) => Number(x.toFixed(digits));

function findBin(feature: ScorecardFeature, value: number | null | undefined): Bin | undefined {
  if (value === null || value === undefined || !Number.isFinite(value)) return feature.bins.find((b) => b.missing);
  return feature.bins.find((b) => !b.missing && (b.min === null || value >= b.min) && (b.max === null || value < b.max));
}

export function binLabel(bin: Bin | undefined): string {
  if (!bin) return 'unseen';
  if (bin.missing) return 'missing';
  return `[${bin.min ?? '-inf'}, ${bin.max ?? '+inf'})`;
}

/** Probability of repaying, in [0, 1], and every feature's contribution. An unseen value (no bin) counts as neutral (WoE 0). */
export function scoreWithContributions(model: Scorecard, features: Features): { probability: number; reasons: Reason[] } {
  let z = model.intercept;
  const reasons: Reason[] = [];
  for (const f of model.features) {
    const value = features[f.name] ?? null;
    const bin = findBin(f, value);
    const effect = f.coefficient * (bin?.woe ?? 0);
    z += effect;
    reasons.push({ feature: f.name, value, bin: binLabel(bin), effect: round(effect, 4), direction: effect >= 0 ? 'raises' : 'lowers' });
  }
  return { probability: sigmoid(z), reasons };
}

export function scoreProbability(model: Scorecard, features: Features): number {
  return scoreWithContributions(model, features).probability;
}

/** The `count` factors that moved the score most, strongest first. */
export function topReasons(reasons: Reason[], count: number): Reason[] {
  return [...reasons].sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect) || a.feature.localeCompare(b.feature)).slice(0, count);
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isBound = (x: unknown) => x === null || isNum(x);

/** Checks a scorecard read from the database or a file before it is trusted. */
export function parseScorecard(json: unknown): Scorecard {
  const m = (typeof json === 'string' ? JSON.parse(json) : json) as Scorecard;
  const fail = (why: string): never => {
    throw new ScorecardFormatError(`Not a valid scorecard: ${why}`);
  };
  if (!m || typeof m !== 'object') fail('not an object');
  if (m.format !== SCORECARD_FORMAT) fail(`format must be ${SCORECARD_FORMAT}`);
  if (typeof m.source !== 'string' || !Number.isInteger(m.dltype) || !Number.isInteger(m.version)) fail('source, dltype, version');
  if (!isNum(m.intercept)) fail('intercept');
  if (!Array.isArray(m.features)) fail('features');
  for (const f of m.features) {
    if (typeof f?.name !== 'string' || !isNum(f.coefficient) || !Array.isArray(f.bins) || f.bins.length === 0) fail(`feature ${f?.name}`);
    for (const b of f.bins) {
      if (!isNum(b?.woe) || !isBound(b.min) || !isBound(b.max)) fail(`bin of ${f.name}`);
    }
  }
  return m;
}
