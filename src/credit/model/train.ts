import { createHash } from 'node:crypto';
import type { Features } from '../sources/source.js';
import { binFeature, DEFAULT_BINNING, informationValue, type BinningOptions } from './binning.js';
import { fitLogistic } from './logistic.js';
import { auc, brier, ks } from './metrics.js';
import { SCORECARD_FORMAT, scoreProbability, type Bin, type HoldoutMetrics, type Scorecard, type ScorecardFeature } from './scorecard.js';

export interface LabelledRow {
  features: Features;
  /** 1 repaid, 0 defaulted. */
  repaid: number;
}

export interface TrainOptions {
  source: string;
  dltype: number;
  trainedOn: string;
  /** Features with a lower information value are left out. */
  minIv?: number;
  binning?: BinningOptions;
  /** Fixed time stamp, so a deterministic build writes the same file. */
  trainedTime?: string;
}

export class TrainingError extends Error {}

export const MIN_TRAIN_ROWS = 100;
export const MIN_CLASS_ROWS = 10;

/**
 * Which rows are held out, by a hash of the phone number: the same number is
 * always on the same side, in training and in evaluation, and no person is in
 * both (their rows at several decision times would leak across).
 */
export function isHoldout(phone: string): boolean {
  return createHash('sha256').update(phone).digest()[0] % 5 === 0;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function woeOf(bins: Bin[], value: number | null | undefined): number {
  const missing = value === null || value === undefined || !Number.isFinite(value);
  const bin = bins.find((b) => (missing ? b.missing : !b.missing && (b.min === null || (value as number) >= b.min) && (b.max === null || (value as number) < b.max)));
  return bin?.woe ?? 0;
}

export function evaluate(model: Scorecard, rows: LabelledRow[]): HoldoutMetrics | null {
  const labels = rows.map((r) => r.repaid);
  const scores = rows.map((r) => scoreProbability(model, r.features));
  const goods = labels.filter((y) => y === 1).length;
  if (goods === 0 || goods === labels.length) return null;
  return { rows: rows.length, auc: round6(auc(scores, labels)), ks: round6(ks(scores, labels)), brier: round6(brier(scores, labels)) };
}

/**
 * Trains a scorecard: bins every feature, keeps those with enough information
 * value, fits a logistic regression on their WoE values, and drops any
 * feature whose weight comes out non-positive (collinear with a stronger one:
 * its bins would read backwards). Numbers are rounded before the model is
 * returned, so the stored model reproduces exactly the scores measured here.
 */
export function trainScorecard(train: LabelledRow[], holdout: LabelledRow[], opts: TrainOptions): Scorecard {
  const good = train.filter((r) => r.repaid === 1).length;
  const bad = train.length - good;
  if (train.length < MIN_TRAIN_ROWS) throw new TrainingError(`dltype ${opts.dltype}: ${train.length} training rows; at least ${MIN_TRAIN_ROWS} are needed`);
  if (good < MIN_CLASS_ROWS || bad < MIN_CLASS_ROWS) {
    throw new TrainingError(`dltype ${opts.dltype}: ${good} repaid and ${bad} defaulted rows; at least ${MIN_CLASS_ROWS} of each are needed`);
  }
  const labels = train.map((r) => r.repaid);
  const names = [...new Set(train.flatMap((r) => Object.keys(r.features)))].sort();
  const minIv = opts.minIv ?? 0.02;
  let candidates: ScorecardFeature[] = [];
  for (const name of names) {
    const bins = binFeature(
      train.map((r) => r.features[name] ?? null),
      labels,
      opts.binning ?? DEFAULT_BINNING,
    ).map((b) => ({ ...b, min: b.min === null ? null : round6(b.min), max: b.max === null ? null : round6(b.max), woe: round6(b.woe) }));
    if (bins.length === 0) continue;
    const iv = informationValue(bins);
    if (iv >= minIv) candidates.push({ name, coefficient: 0, iv: round6(iv), bins });
  }
  if (candidates.length === 0) throw new TrainingError(`dltype ${opts.dltype}: no feature separates repaid from defaulted rows`);

  let fit = fitLogistic(
    train.map((r) => candidates.map((f) => woeOf(f.bins, r.features[f.name]))),
    labels,
  );
  for (;;) {
    const worst = fit.coefficients.reduce((w, c, i) => (c < fit.coefficients[w] ? i : w), 0);
    if (fit.coefficients[worst] > 0 || candidates.length === 1) break;
    candidates = candidates.filter((_, i) => i !== worst);
    fit = fitLogistic(
      train.map((r) => candidates.map((f) => woeOf(f.bins, r.features[f.name]))),
      labels,
    );
  }

  const model: Scorecard = {
    format: SCORECARD_FORMAT,
    source: opts.source,
    dltype: opts.dltype,
    version: 1,
    trained_time: opts.trainedTime ?? new Date().toISOString(),
    trained_on: opts.trainedOn,
    train_rows: train.length,
    train_good: good,
    train_bad: bad,
    holdout: null,
    intercept: round6(fit.intercept),
    features: candidates.map((f, i) => ({ ...f, coefficient: round6(fit.coefficients[i]) })),
  };
  model.holdout = evaluate(model, holdout);
  return model;
}
