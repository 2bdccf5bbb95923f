import { seededRandom, shuffleInPlace } from './random.js';

/** Held-out split, stratified by intent: each intent gives `fraction` of its samples (at least one when it has 3 or more). */
export function stratifiedSplit<T>(items: T[], classOf: (item: T) => string, fraction: number, seed: number): { train: T[]; test: T[] } {
  const random = seededRandom(seed);
  const byClass = new Map<string, T[]>();
  for (const item of items) {
    const key = classOf(item);
    const list = byClass.get(key);
    if (list) list.push(item);
    else byClass.set(key, [item]);
  }
  const train: T[] = [];
  const test: T[] = [];
  for (const key of [...byClass.keys()].sort()) {
    const group = shuffleInPlace(byClass.get(key)!.slice(), random);
    const n = group.length < 3 ? 0 : Math.max(1, Math.round(group.length * fraction));
    test.push(...group.slice(0, n));
    train.push(...group.slice(n));
  }
  return { train, test };
}

export interface ClassificationMetrics {
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  /** Examples measured on. */
  support: number;
}

/** Accuracy and macro precision/recall/F1 over the classes present in the truth. */
export function classificationMetrics(truth: string[], predicted: (string | undefined)[]): ClassificationMetrics {
  const classes = [...new Set(truth)];
  let correct = 0;
  let p = 0;
  let r = 0;
  let f = 0;
  for (let i = 0; i < truth.length; i++) if (truth[i] === predicted[i]) correct++;
  for (const c of classes) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (let i = 0; i < truth.length; i++) {
      if (predicted[i] === c && truth[i] === c) tp++;
      else if (predicted[i] === c) fp++;
      else if (truth[i] === c) fn++;
    }
    const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
    const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
    p += precision;
    r += recall;
    f += precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  }
  const k = classes.length || 1;
  return { accuracy: truth.length ? correct / truth.length : 0, precision: p / k, recall: r / k, f1: f / k, support: truth.length };
}

export interface Span {
  entity: string;
  start: number;
  end: number;
}

/** Exact-span micro precision/recall/F1: a span counts when entity, start and end all match. */
export function spanMetrics(truth: Span[][], predicted: Span[][]): { precision: number; recall: number; f1: number; support: number } {
  let tp = 0;
  let nTruth = 0;
  let nPred = 0;
  for (let i = 0; i < truth.length; i++) {
    const gold = new Set(truth[i]!.map((s) => `${s.entity}:${s.start}:${s.end}`));
    nTruth += gold.size;
    const guessed = new Set((predicted[i] ?? []).map((s) => `${s.entity}:${s.start}:${s.end}`));
    nPred += guessed.size;
    for (const g of guessed) if (gold.has(g)) tp++;
  }
  const precision = nPred ? tp / nPred : 0;
  const recall = nTruth ? tp / nTruth : 0;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, support: nTruth };
}
