import { seededRandom, shuffleInPlace } from './random.js';

/**
 * Linear multi-class models over sparse features: a feature present in an
 * example has the value of its weight (`featureWeights`, 1 when absent), each
 * example L2-normalised. Weights are laid out feature-major
 * (`w[f * classes + c]`) so scoring an utterance touches only its own
 * features' rows. `nb` is multinomial naive Bayes (log P(feature | class) as
 * the weights, the log prior as the bias): the same scoring, trained by
 * counting.
 */
export type LinearKind = 'softmax' | 'svm' | 'nb' | 'ensemble';

export interface LinearOptions {
  kind: LinearKind;
  epochs: number;
  /** L2 strength. */
  l2: number;
  learningRate: number;
  seed: number;
  /** Weight each class by n / (k * n_class) so small intents are not drowned. */
  balanceClasses: boolean;
  /** Naive Bayes smoothing (added to every feature's weighted count). */
  alpha: number;
  /**
   * Softmax and SVM: the chance that a feature of an example is left out at
   * each step (the kept ones scaled by 1 / (1 - p)), so no class leans on
   * one feature alone; 0 for none.
   */
  dropout: number;
  /**
   * `ensemble`: the weight of naive Bayes' log-likelihoods (sharpened by
   * `NB_SHARPNESS`) added to the softmax's scores, a product of the two
   * experts' distributions that stays one linear model.
   */
  nbMix: number;
}

/** Naive Bayes log-likelihoods of a unit-length example are on a smaller scale than log-odds: multiplied by this before a softmax. */
export const NB_SHARPNESS = 10;

export const DEFAULT_LINEAR: LinearOptions = {
  kind: 'softmax',
  epochs: 30,
  l2: 1e-5,
  learningRate: 0.5,
  seed: 7,
  balanceClasses: true,
  alpha: 0.1,
  dropout: 0,
  nbMix: 0.5,
};

export interface LinearModel {
  kind: LinearKind;
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

/** Scores -> probabilities (in place). SVM margins are turned into a distribution the same way. */
export function softmaxInPlace(values: Float64Array, temperature = 1): Float64Array {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    values[i] = Math.exp((values[i]! - max) / temperature);
    sum += values[i]!;
  }
  for (let i = 0; i < values.length; i++) values[i]! /= sum;
  return values;
}

/** An example's values with each left out (0) at chance `p`, the others scaled by 1 / (1 - p). */
function dropped(values: number[], p: number, random: () => number, out: number[]): number[] {
  out.length = values.length;
  const scale = 1 / (1 - p);
  for (let i = 0; i < values.length; i++) out[i] = random() < p ? 0 : values[i]! * scale;
  return out;
}

/** `featureWeights`: each feature's value when present (see `featureValues`); all 1 when absent. */
/** Told as a training's passes go: `done` of `total` (0 of n when the first starts, n of n at the end). */
export type EpochReport = (done: number, total: number) => void;

export function trainLinear(
  examples: Example[],
  classes: number,
  features: number,
  options: LinearOptions,
  featureWeights?: Float32Array,
  onEpoch?: EpochReport,
): LinearModel {
  if (options.kind === 'nb') {
    const nb = trainNaiveBayes(examples, classes, features, options, featureWeights);
    onEpoch?.(1, 1);
    return nb;
  }
  if (options.kind === 'ensemble') {
    const softmax = trainSoftmax(examples, classes, features, options, featureWeights, onEpoch);
    const nb = trainNaiveBayes(examples, classes, features, options, featureWeights);
    const mix = options.nbMix * NB_SHARPNESS;
    for (let k = 0; k < softmax.weights.length; k++) softmax.weights[k]! += mix * nb.weights[k]!;
    for (let c = 0; c < classes; c++) softmax.bias[c]! += mix * nb.bias[c]!;
    return { ...softmax, kind: 'ensemble' };
  }
  return options.kind === 'softmax'
    ? trainSoftmax(examples, classes, features, options, featureWeights, onEpoch)
    : trainSvm(examples, classes, features, options, featureWeights, onEpoch);
}

/** Multinomial logistic regression by AdaGrad SGD, L2 applied to the rows an example touches. */
function trainSoftmax(examples: Example[], classes: number, features: number, o: LinearOptions, featureWeights?: Float32Array, onEpoch?: EpochReport): LinearModel {
  const weights = new Float32Array(features * classes);
  const bias = new Float32Array(classes);
  const gradSq = new Float32Array(features * classes).fill(1e-8);
  const biasSq = new Float64Array(classes).fill(1e-8);
  const cw = classWeights(examples, classes, o.balanceClasses);
  const model: LinearModel = { kind: 'softmax', classes, features, weights, bias, ...(featureWeights ? { featureWeights } : {}) };
  const values = examples.map((e) => featureValues(e.features, featureWeights));
  const order = examples.map((_, i) => i);
  const random = seededRandom(o.seed);
  const probs = new Float64Array(classes);
  const dropBuffer: number[] = [];
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    onEpoch?.(epoch, o.epochs);
    shuffleInPlace(order, random);
    for (const n of order) {
      const ex = examples[n]!;
      const value = o.dropout > 0 ? dropped(values[n]!, o.dropout, random, dropBuffer) : values[n]!;
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

/**
 * Multinomial naive Bayes over the normalised feature values: weight =
 * log P(feature | class) with `alpha` smoothing, bias = log P(class) (uniform
 * when classes are balanced).
 */
function trainNaiveBayes(examples: Example[], classes: number, features: number, o: LinearOptions, featureWeights?: Float32Array): LinearModel {
  const counts = new Float64Array(features * classes);
  const totals = new Float64Array(classes);
  const perClass = new Float64Array(classes);
  for (const ex of examples) {
    const values = featureValues(ex.features, featureWeights);
    perClass[ex.label]! += 1;
    for (let i = 0; i < ex.features.length; i++) {
      counts[ex.features[i]! * classes + ex.label]! += values[i]!;
      totals[ex.label]! += values[i]!;
    }
  }
  const weights = new Float32Array(features * classes);
  const bias = new Float32Array(classes);
  for (let c = 0; c < classes; c++) {
    const denominator = Math.log(totals[c]! + o.alpha * features);
    for (let f = 0; f < features; f++) weights[f * classes + c] = Math.log(counts[f * classes + c]! + o.alpha) - denominator;
    bias[c] = o.balanceClasses || perClass[c] === 0 ? 0 : Math.log(perClass[c]! / examples.length);
  }
  return { kind: 'nb', classes, features, weights, bias, ...(featureWeights ? { featureWeights } : {}) };
}

/**
 * Crammer-Singer multi-class hinge loss by SGD with a decaying step, weights
 * averaged over all steps (the average generalises better than the last iterate).
 */
function trainSvm(examples: Example[], classes: number, features: number, o: LinearOptions, featureWeights?: Float32Array, onEpoch?: EpochReport): LinearModel {
  const size = features * classes;
  const weights = new Float32Array(size);
  const bias = new Float32Array(classes);
  // Averaging by the "timestamp" trick: keep sum of t * update, average = w - acc / t.
  const acc = new Float64Array(size);
  const biasAcc = new Float64Array(classes);
  const cw = classWeights(examples, classes, o.balanceClasses);
  const model: LinearModel = { kind: 'svm', classes, features, weights, bias, ...(featureWeights ? { featureWeights } : {}) };
  const values = examples.map((e) => featureValues(e.features, featureWeights));
  const order = examples.map((_, i) => i);
  const random = seededRandom(o.seed);
  const s = new Float64Array(classes);
  const dropBuffer: number[] = [];
  let t = 1;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    onEpoch?.(epoch, o.epochs);
    shuffleInPlace(order, random);
    for (const n of order) {
      const ex = examples[n]!;
      const exValues = o.dropout > 0 ? dropped(values[n]!, o.dropout, random, dropBuffer) : values[n]!;
      scoresWith(model, ex.features, exValues, s);
      let rival = -1;
      let best = -Infinity;
      for (let c = 0; c < classes; c++) {
        if (c === ex.label) continue;
        if (s[c]! > best) {
          best = s[c]!;
          rival = c;
        }
      }
      if (rival >= 0 && s[ex.label]! - best < 1) {
        const step = (o.learningRate * cw[ex.label]!) / (1 + epoch * 0.5);
        for (let i = 0; i < ex.features.length; i++) {
          const value = step * exValues[i]!;
          const ky = ex.features[i]! * classes + ex.label;
          const kr = ex.features[i]! * classes + rival;
          weights[ky]! += value;
          weights[kr]! -= value;
          acc[ky]! += t * value;
          acc[kr]! -= t * value;
        }
        bias[ex.label]! += step * 0.1;
        bias[rival]! -= step * 0.1;
        biasAcc[ex.label]! += t * step * 0.1;
        biasAcc[rival]! -= t * step * 0.1;
      }
      t++;
    }
  }
  for (let k = 0; k < size; k++) weights[k] = weights[k]! - acc[k]! / t;
  for (let c = 0; c < classes; c++) bias[c] = bias[c]! - biasAcc[c]! / t;
  onEpoch?.(o.epochs, o.epochs);
  return model;
}
