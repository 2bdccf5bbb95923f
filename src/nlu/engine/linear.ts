import { seededRandom, shuffleInPlace } from './random.js';

/**
 * The intent classifier: multinomial logistic regression (softmax) over sparse features. A feature present in an
 * example has the value of its weight (`featureWeights`, 1 when absent), each example L2-normalised. Weights are
 * laid out feature-major (`w[f * classes + c]`) so scoring an utterance touches only its own features' rows.
 */
export interface LinearOptions {
  epochs: number;
  /** L2 strength. */
  l2: number;
  learningRate: number;
  seed: number;
  /** Weight each class by n / (k * n_class) so small intents are not drowned. */
  balanceClasses: boolean;
}

export const DEFAULT_LINEAR: LinearOptions = {
  epochs: 30,
  l2: 2e-4,
  learningRate: 0.2,
  seed: 7,
  balanceClasses: true,
};

export interface LinearModel {
  classes: number;
  features: number;
  weights: Float32Array;
  bias: Float32Array;
  /** Value of each feature when present, before the example is normalised; all 1 when absent. */
  featureWeights?: Float32Array;
}

export interface Example {
  features: number[];
  label: number;
}

function classWeights(examples: Example[], classes: number, balance: boolean): Float64Array {
  const weights = new Float64Array(classes).fill(1);
  if (!balance) return weights;
  const counts = new Float64Array(classes);
  for (const e of examples) counts[e.label]! += 1;
  const present = counts.filter((c) => c > 0).length;
  for (let c = 0; c < classes; c++) weights[c] = counts[c]! > 0 ? examples.length / (present * counts[c]!) : 1;
  return weights;
}

/**
 * The values of an example's features: each feature's weight, the vector L2-normalised. A reused `out` longer
 * than the features keeps its length (its tail is stale): shortening an array drops storage it would grow again.
 */
export function featureValues(features: number[], featureWeights: Float32Array | undefined, out: number[] = []): number[] {
  const n = features.length;
  if (out.length < n) out.length = n;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const w = featureWeights ? featureWeights[features[i]!]! : 1;
    out[i] = w;
    sum += w * w;
  }
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < n; i++) out[i]! *= scale;
  return out;
}

/** Raw scores of one example (features already mapped to indices); `values`: a buffer for the feature values, reused by the caller. */
export function scores(model: LinearModel, features: number[], out = new Float64Array(model.classes), values: number[] = []): Float64Array {
  return scoresWith(model, features, featureValues(features, model.featureWeights, values), out);
}

/**
 * Raw scores from features and their values (see `featureValues`). Four feature rows at a time: each class's
 * sum takes them in the same order as one row after the other, ((s + a) + b) + ..., so the same bits, with a
 * quarter of the loads and stores of the sums.
 */
function scoresWith(model: LinearModel, features: number[], values: number[], out: Float64Array): Float64Array {
  const { classes, weights, bias } = model;
  for (let c = 0; c < classes; c++) out[c] = bias[c]!;
  const n = features.length;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const r0 = features[i]! * classes;
    const r1 = features[i + 1]! * classes;
    const r2 = features[i + 2]! * classes;
    const r3 = features[i + 3]! * classes;
    const v0 = values[i]!;
    const v1 = values[i + 1]!;
    const v2 = values[i + 2]!;
    const v3 = values[i + 3]!;
    for (let c = 0; c < classes; c++) out[c] = out[c]! + weights[r0 + c]! * v0 + weights[r1 + c]! * v1 + weights[r2 + c]! * v2 + weights[r3 + c]! * v3;
  }
  for (; i < n; i++) {
    const row = features[i]! * classes;
    const value = values[i]!;
    for (let c = 0; c < classes; c++) out[c]! += weights[row + c]! * value;
  }
  return out;
}

/** Scores -> probabilities (in place). */
export function softmaxInPlace(values: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    values[i] = Math.exp(values[i]! - max);
    sum += values[i]!;
  }
  for (let i = 0; i < values.length; i++) values[i]! /= sum;
  return values;
}

/** Told as a training's passes go: `done` of `total` (0 of n when the first starts, n of n at the end). */
export type EpochReport = (done: number, total: number) => void;

/** Multinomial logistic regression by AdaGrad SGD, L2 applied to the rows an example touches. */
export function trainLinear(
  examples: Example[],
  classes: number,
  features: number,
  o: LinearOptions,
  featureWeights?: Float32Array,
  onEpoch?: EpochReport,
): LinearModel {
  const weights = new Float32Array(features * classes);
  const bias = new Float32Array(classes);
  const gradSq = new Float32Array(features * classes).fill(1e-8);
  const biasSq = new Float64Array(classes).fill(1e-8);
  const cw = classWeights(examples, classes, o.balanceClasses);
  const model: LinearModel = { classes, features, weights, bias, ...(featureWeights ? { featureWeights } : {}) };
  const values = examples.map((e) => featureValues(e.features, featureWeights));
  const order = examples.map((_, i) => i);
  const random = seededRandom(o.seed);
  const probs = new Float64Array(classes);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    onEpoch?.(epoch, o.epochs);
    shuffleInPlace(order, random);
    for (const n of order) {
      const ex = examples[n]!;
      const value = values[n]!;
      scoresWith(model, ex.features, value, probs);
      softmaxInPlace(probs);
      const w = cw[ex.label]!;
      for (let c = 0; c < classes; c++) {
        const g = (probs[c]! - (c === ex.label ? 1 : 0)) * w;
        biasSq[c]! += g * g;
        bias[c]! -= (o.learningRate * g) / Math.sqrt(biasSq[c]!);
        for (let i = 0; i < ex.features.length; i++) {
          if (value[i] === 0) continue;
          const k = ex.features[i]! * classes + c;
          const grad = g * value[i]! + o.l2 * weights[k]!;
          gradSq[k]! += grad * grad;
          weights[k]! -= (o.learningRate * grad) / Math.sqrt(gradSq[k]!);
        }
      }
    }
  }
  onEpoch?.(o.epochs, o.epochs);
  return model;
}
