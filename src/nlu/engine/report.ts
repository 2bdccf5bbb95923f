import { NluModel, trainModel, type TrainRequest, type TrainingExample } from './model.js';
import { seededRandom, shuffleInPlace } from './random.js';
import { VIETNAM_OFFSET_MINUTES } from './system-entities.js';

/**
 * A k-fold cross-validated report of a training set: every sample is predicted once by a model that did not learn
 * from it (folds stratified by intent, seeded), which says per intent and per entity label what the held-out split
 * of a training says only as one average.
 */

export const REPORT_FOLDS = 5;
/** Confusion pairs and confused samples listed, the worst first. */
const LISTED = 20;

export interface ScoreRow {
  precision: number;
  recall: number;
  f1: number;
  /** Samples (intents) or gold spans (entities) of this label. */
  support: number;
}

export interface ModelReport {
  folds: number;
  samples: number;
  intents: { accuracy: number; macro_f1: number; per_intent: ({ intent: string } & ScoreRow)[] };
  /** Samples of `expected` predicted as `predicted`, most first. */
  confusions: { expected: string; predicted: string; count: number }[];
  entities: { micro: ScoreRow; per_label: ({ entity: string } & ScoreRow)[] };
  /** Samples predicted wrong, the most confidently wrong first. */
  confused_samples: { text: string; expected: string; predicted: string; confidence: number }[];
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

function score(tp: number, fp: number, fn: number): ScoreRow {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision: round(precision), recall: round(recall), f1: round(f1), support: tp + fn };
}

/** Fold of each example: within each intent (and the samples without one) shuffled, then dealt round. */
export function foldsOf(examples: TrainingExample[], folds: number, seed: number): number[] {
  const random = seededRandom(seed);
  const byIntent = new Map<string, number[]>();
  examples.forEach((e, i) => {
    const list = byIntent.get(e.intent);
    if (list) list.push(i);
    else byIntent.set(e.intent, [i]);
  });
  const out = new Array<number>(examples.length).fill(0);
  let next = 0;
  for (const key of [...byIntent.keys()].sort()) {
    // Each intent starts where the last one stopped, so folds stay even when intents have few samples.
    for (const i of shuffleInPlace(byIntent.get(key)!, random)) out[i] = next++ % folds;
  }
  return out;
}

export function crossValidate(request: TrainRequest, folds = REPORT_FOLDS, seed = 7): ModelReport {
  const { examples } = request;
  const fold = foldsOf(examples, folds, seed);
  const labels = new Set(request.entities.map((d) => d.label));
  const ref = { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES };
  const predictedIntent: { label: string; confidence: number }[] = new Array(examples.length);
  const predictedSpans: { entity: string; start: number; end: number }[][] = new Array(examples.length);
  for (let k = 0; k < folds; k++) {
    const train = examples.filter((_, i) => fold[i] !== k);
    if (train.length === examples.length) continue;
    const model = new NluModel(trainModel({ ...request, examples: train, options: { ...request.options, holdout: 0 } }));
    examples.forEach((e, i) => {
      if (fold[i] !== k) return;
      if (request.parts.intent && e.intent) predictedIntent[i] = model.intents(e.text, 1)[0] ?? { label: '', confidence: 0 };
      if (request.parts.entity && labels.size > 0) predictedSpans[i] = model.extract(e.text, ref).filter((p) => labels.has(p.entity));
    });
  }
  return {
    folds,
    samples: examples.length,
    ...intentReport(examples, predictedIntent),
    entities: entityReport(examples, predictedSpans, labels),
  };
}

function intentReport(examples: TrainingExample[], predicted: { label: string; confidence: number }[]): Pick<ModelReport, 'intents' | 'confusions' | 'confused_samples'> {
  const counts = new Map<string, { tp: number; fp: number; fn: number }>();
  const at = (label: string) => counts.get(label) ?? counts.set(label, { tp: 0, fp: 0, fn: 0 }).get(label)!;
  const pairs = new Map<string, number>();
  const wrong: ModelReport['confused_samples'] = [];
  let measured = 0;
  let correct = 0;
  examples.forEach((e, i) => {
    const p = predicted[i];
    if (!e.intent || !p) return;
    measured++;
    at(e.intent);
    if (p.label === e.intent) {
      correct++;
      at(e.intent).tp++;
      return;
    }
    at(e.intent).fn++;
    if (p.label) at(p.label).fp++;
    const key = `${e.intent}\u0000${p.label}`;
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
    wrong.push({ text: e.text, expected: e.intent, predicted: p.label, confidence: round(p.confidence) });
  });
  const perIntent = [...counts.entries()]
    .filter(([, c]) => c.tp + c.fn > 0)
    .map(([intent, c]) => ({ intent, ...score(c.tp, c.fp, c.fn) }))
    .sort((a, b) => a.f1 - b.f1 || a.intent.localeCompare(b.intent));
  return {
    intents: {
      accuracy: round(measured ? correct / measured : 0),
      macro_f1: round(perIntent.reduce((sum, r) => sum + r.f1, 0) / (perIntent.length || 1)),
      per_intent: perIntent,
    },
    confusions: [...pairs.entries()]
      .map(([key, count]) => {
        const [expected, predictedLabel] = key.split('\u0000') as [string, string];
        return { expected, predicted: predictedLabel, count };
      })
      .sort((a, b) => b.count - a.count || a.expected.localeCompare(b.expected))
      .slice(0, LISTED),
    confused_samples: wrong.sort((a, b) => b.confidence - a.confidence).slice(0, LISTED),
  };
}

function entityReport(examples: TrainingExample[], predicted: { entity: string; start: number; end: number }[][], labels: Set<string>): ModelReport['entities'] {
  const counts = new Map<string, { tp: number; fp: number; fn: number }>();
  const at = (label: string) => counts.get(label) ?? counts.set(label, { tp: 0, fp: 0, fn: 0 }).get(label)!;
  examples.forEach((e, i) => {
    const guessed = predicted[i];
    if (!guessed) return;
    const gold = new Set(e.entities.filter((s) => labels.has(s.entity)).map((s) => `${s.entity}:${s.start}:${s.end}`));
    const found = new Set(guessed.map((s) => `${s.entity}:${s.start}:${s.end}`));
    for (const key of gold) at(key.slice(0, key.indexOf(':')))[found.has(key) ? 'tp' : 'fn']++;
    for (const key of found) if (!gold.has(key)) at(key.slice(0, key.indexOf(':'))).fp++;
  });
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const c of counts.values()) {
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  return {
    micro: score(tp, fp, fn),
    per_label: [...counts.entries()].map(([entity, c]) => ({ entity, ...score(c.tp, c.fp, c.fn) })).sort((a, b) => a.f1 - b.f1 || a.entity.localeCompare(b.entity)),
  };
}
