import { seededRandom, shuffleInPlace } from './random.js';
import type { Token } from './text.js';

/**
 * Free-text entities: an averaged perceptron over syllables with BIO tags,
 * decoded greedily left to right (the previous two tags are features).
 * Trained from the entity-sample links: whatever the words look like, their
 * neighbours ("đến ___", "tên là ___") carry most of the signal.
 */

export interface TaggedSentence {
  tokens: Token[];
  /** Original-case text of each token (capitals are a feature). */
  surface: string[];
  /** Context hints per token from the dictionary and system entities ("d:city:B"). */
  hints: string[][];
  /** Gold tags, for training. */
  tags?: string[];
}

export interface TaggerData {
  tags: string[];
  /** feature -> weight per tag (averaged), only non-zero rows. */
  weights: Record<string, number[]>;
}

const WORD = /[\p{L}\p{N}]/u;

function shapeOf(surface: string): string {
  if (/^\d+$/.test(surface)) return 'digits';
  if (/\d/.test(surface)) return 'mixed';
  if (!WORD.test(surface)) return 'punct';
  if (surface === surface.toUpperCase() && surface.length > 1) return 'upper';
  if (surface[0] !== surface[0]!.toLowerCase()) return 'cap';
  return 'lower';
}

function features(s: TaggedSentence, i: number, prev: string, prev2: string): string[] {
  const f = (k: number) => s.tokens[k]?.folded ?? (k < 0 ? '<s>' : '</s>');
  const w = (k: number) => s.tokens[k]?.text ?? (k < 0 ? '<s>' : '</s>');
  const out = [
    'bias',
    `w0=${w(i)}`,
    `f0=${f(i)}`,
    `f-1=${f(i - 1)}`,
    `f+1=${f(i + 1)}`,
    `f-2=${f(i - 2)}`,
    `f+2=${f(i + 2)}`,
    `w-1=${w(i - 1)}`,
    `f-1f0=${f(i - 1)} ${f(i)}`,
    `f0f+1=${f(i)} ${f(i + 1)}`,
    `f-2f-1=${f(i - 2)} ${f(i - 1)}`,
    `shape=${shapeOf(s.surface[i] ?? '')}`,
    `shape-1=${shapeOf(s.surface[i - 1] ?? '')}|${prev}`,
    `t-1=${prev}`,
    `t-2t-1=${prev2} ${prev}`,
    `t-1f0=${prev} ${f(i)}`,
    `t-1f-1=${prev} ${f(i - 1)}`,
  ];
  for (const h of s.hints[i] ?? []) out.push(`h=${h}`, `h|t-1=${h}|${prev}`);
  return out;
}

/** An I tag may only follow a B or I of the same entity; otherwise it starts one. */
function legal(tag: string, prev: string): string {
  if (tag.startsWith('I-') && prev.slice(2) !== tag.slice(2)) return `B-${tag.slice(2)}`;
  return tag;
}

export class PerceptronTagger {
  private readonly weights: Map<string, Float64Array>;

  constructor(
    readonly tags: string[],
    weights?: Map<string, Float64Array>,
  ) {
    this.weights = weights ?? new Map();
  }

  static fromData(data: TaggerData): PerceptronTagger {
    const weights = new Map<string, Float64Array>();
    for (const [feature, row] of Object.entries(data.weights)) weights.set(feature, Float64Array.from(row));
    return new PerceptronTagger(data.tags, weights);
  }

  toData(): TaggerData {
    const weights: Record<string, number[]> = {};
    for (const [feature, row] of this.weights) {
      if (row.some((v) => v !== 0)) weights[feature] = Array.from(row, (v) => Math.round(v * 1e4) / 1e4);
    }
    return { tags: this.tags, weights };
  }

  private best(feats: string[], scores: Float64Array): number {
    scores.fill(0);
    for (const feat of feats) {
      const row = this.weights.get(feat);
      if (!row) continue;
      for (let t = 0; t < scores.length; t++) scores[t]! += row[t]!;
    }
    let best = 0;
    for (let t = 1; t < scores.length; t++) if (scores[t]! > scores[best]!) best = t;
    return best;
  }

  tag(s: TaggedSentence): string[] {
    const out: string[] = [];
    const scores = new Float64Array(this.tags.length);
    let prev = '<s>';
    let prev2 = '<s>';
    for (let i = 0; i < s.tokens.length; i++) {
      const tag = legal(this.tags[this.best(features(s, i, prev, prev2), scores)]!, prev);
      out.push(tag);
      prev2 = prev;
      prev = tag;
    }
    return out;
  }

  static train(sentences: TaggedSentence[], opts: { epochs: number; seed: number }): PerceptronTagger {
    const tagSet = new Set<string>(['O']);
    for (const s of sentences) for (const t of s.tags ?? []) tagSet.add(t);
    const tags = [...tagSet];
    const tagIndex = new Map(tags.map((t, i) => [t, i]));
    const weights = new Map<string, Float64Array>();
    const totals = new Map<string, Float64Array>();
    const stamps = new Map<string, Float64Array>();
    const tagger = new PerceptronTagger(tags, weights);
    const scores = new Float64Array(tags.length);
    let instance = 0;
    const update = (feat: string, tag: number, delta: number) => {
      let row = weights.get(feat);
      if (!row) {
        row = new Float64Array(tags.length);
        weights.set(feat, row);
        totals.set(feat, new Float64Array(tags.length));
        stamps.set(feat, new Float64Array(tags.length));
      }
      const total = totals.get(feat)!;
      const stamp = stamps.get(feat)!;
      total[tag]! += (instance - stamp[tag]!) * row[tag]!;
      stamp[tag] = instance;
      row[tag]! += delta;
    };
    const order = sentences.filter((s) => s.tags && s.tokens.length > 0);
    const random = seededRandom(opts.seed);
    for (let epoch = 0; epoch < opts.epochs; epoch++) {
      shuffleInPlace(order, random);
      for (const s of order) {
        let prev = '<s>';
        let prev2 = '<s>';
        for (let i = 0; i < s.tokens.length; i++) {
          instance++;
          const feats = features(s, i, prev, prev2);
          const guess = tagger.best(feats, scores);
          const truth = tagIndex.get(s.tags![i]!)!;
          if (guess !== truth) {
            for (const feat of feats) {
              update(feat, truth, 1);
              update(feat, guess, -1);
            }
          }
          // Train on the gold history (the decoder's history is close to it once trained).
          prev2 = prev;
          prev = s.tags![i]!;
        }
      }
    }
    for (const [feat, row] of weights) {
      const total = totals.get(feat)!;
      const stamp = stamps.get(feat)!;
      for (let t = 0; t < tags.length; t++) {
        total[t]! += (instance - stamp[t]!) * row[t]!;
        row[t] = instance > 0 ? total[t]! / instance : 0;
      }
    }
    return tagger;
  }
}

/** BIO tags -> spans of token indices. */
export function spansOf(tags: string[]): { entity: string; first: number; last: number }[] {
  const out: { entity: string; first: number; last: number }[] = [];
  let open: { entity: string; first: number } | undefined;
  tags.forEach((tag, i) => {
    if (tag.startsWith('I-') && open && open.entity === tag.slice(2)) return;
    if (open) out.push({ ...open, last: i });
    open = tag === 'O' ? undefined : { entity: tag.slice(2), first: i };
  });
  if (open) out.push({ ...(open as { entity: string; first: number }), last: tags.length });
  return out;
}
