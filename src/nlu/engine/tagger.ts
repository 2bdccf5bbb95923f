import { seededRandom, shuffleInPlace } from './random.js';
import { TaggerIndex, type IndexedSentence } from './tagger-index.js';
import { foldText, type Token } from './text.js';

/**
 * Free-text entities: an averaged perceptron over syllables with BIO tags,
 * decoded greedily left to right (the previous two tags are features).
 * Trained from the entity-sample links: whatever the words look like, their
 * neighbours ("đến ___", "tên là ___") carry most of the signal.
 *
 * Word dropout: in training each syllable's identity is hidden as "<unk>"
 * now and then, and at prediction a syllable never seen in training is read
 * as "<unk>"; so a new value (a product, a name nobody typed before) is
 * tagged by its neighbours, shape and hints instead of being an unknown O.
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
  /** Absent: greedy (models trained before Viterbi decoding). */
  decoder?: TaggerDecoder;
  /** Viterbi's transition weights, (tags + 1) x tags per key. */
  pairs?: Record<string, number[]>;
  /** Syllables seen in training, lower case as written (others read as "<unk>"); absent in models trained before word dropout. */
  words?: string[];
  /** feature -> weight per tag (averaged), only non-zero rows. */
  weights: Record<string, number[]>;
}

const WORD = /[\p{L}\p{N}]/u;

/** Shapes of the syllables met (short ones; bounded, cleared when full). */
const shapes = new Map<string, string>();

function shapeOf(surface: string): string {
  let shape = shapes.get(surface);
  if (shape === undefined) {
    shape = readShape(surface);
    if (surface.length <= 32) {
      if (shapes.size >= 20_000) shapes.clear();
      shapes.set(surface, shape);
    }
  }
  return shape;
}

function readShape(surface: string): string {
  if (/^\d+$/.test(surface)) return 'digits';
  if (/\d/.test(surface)) return 'mixed';
  if (!WORD.test(surface)) return 'punct';
  if (surface === surface.toUpperCase() && surface.length > 1) return 'upper';
  if (surface[0] !== surface[0]!.toLowerCase()) return 'cap';
  return 'lower';
}

export const UNKNOWN = '<unk>';

/** Each token's identity as the features read it (folded and written), "<unk>" where hidden or unknown. */
interface Identities {
  folded: string[];
  written: string[];
}

function identities(s: TaggedSentence, hidden: (token: Token) => boolean): Identities {
  const folded: string[] = [];
  const written: string[] = [];
  for (const t of s.tokens) {
    const unknown = hidden(t);
    folded.push(unknown ? UNKNOWN : t.folded);
    written.push(unknown ? UNKNOWN : t.text);
  }
  return { folded, written };
}

/** The features of token i that do not depend on the tags. */
function emission(s: TaggedSentence, ids: Identities, i: number): string[] {
  const f = (k: number) => ids.folded[k] ?? (k < 0 ? '<s>' : '</s>');
  const w = (k: number) => ids.written[k] ?? (k < 0 ? '<s>' : '</s>');
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
  ];
  for (const h of s.hints[i] ?? []) out.push(`h=${h}`);
  return out;
}

/** The features of token i conjoined with the previous tag. */
function transition(s: TaggedSentence, ids: Identities, i: number, prev: string): string[] {
  const f = (k: number) => ids.folded[k] ?? (k < 0 ? '<s>' : '</s>');
  const out = [`shape-1=${shapeOf(s.surface[i - 1] ?? '')}|${prev}`, `t-1=${prev}`, `t-1f0=${prev} ${f(i)}`, `t-1f-1=${prev} ${f(i - 1)}`];
  for (const h of s.hints[i] ?? []) out.push(`h|t-1=${h}|${prev}`);
  return out;
}

/** The keys of `transition` without the previous tag (Viterbi keeps one weight per previous tag and tag for each). */
function transitionKeys(s: TaggedSentence, ids: Identities, i: number): string[] {
  const f = (k: number) => ids.folded[k] ?? (k < 0 ? '<s>' : '</s>');
  const out = [`shape-1=${shapeOf(s.surface[i - 1] ?? '')}`, 't-1', `t-1f0=${f(i)}`, `t-1f-1=${f(i - 1)}`];
  for (const h of s.hints[i] ?? []) out.push(`h|t-1=${h}`);
  return out;
}

/** The greedy decoder's features: both halves and the tag before the previous one. */
function features(s: TaggedSentence, ids: Identities, i: number, prev: string, prev2: string): string[] {
  return [...emission(s, ids, i), ...transition(s, ids, i, prev), `t-2t-1=${prev2} ${prev}`];
}

/** An I tag may only follow a B or I of the same entity; otherwise it starts one. */
function legal(tag: string, prev: string): string {
  if (tag.startsWith('I-') && prev.slice(2) !== tag.slice(2)) return `B-${tag.slice(2)}`;
  return tag;
}

/** Whether BIO allows `tag` after `prev` (an I continues its own entity only). */
function allowed(prev: string, tag: string): boolean {
  return !tag.startsWith('I-') || ((prev.startsWith('B-') || prev.startsWith('I-')) && prev.slice(2) === tag.slice(2));
}

/**
 * `greedy`: left to right, the two previous tags as features (models trained
 * before Viterbi). `viterbi`: first order, the best legal BIO sequence as a
 * whole, so a name's first word is not given up for its second.
 */
export type TaggerDecoder = 'greedy' | 'viterbi';

function rowsOf(rows: Record<string, number[]>): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const [feature, row] of Object.entries(rows)) out.set(feature, Float64Array.from(row));
  return out;
}

function rowsData(rows: Map<string, Float64Array>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [feature, row] of rows) if (row.some((v) => v !== 0)) out[feature] = Array.from(row, (v) => Math.round(v * 1e4) / 1e4);
  return out;
}

export class PerceptronTagger {
  private readonly weights: Map<string, Float64Array>;
  /** Viterbi's transition weights: key -> (previous tag + 1) * tags + tag ("<s>" is previous tag -1). */
  private readonly pairs: Map<string, Float64Array>;

  constructor(
    readonly tags: string[],
    weights?: Map<string, Float64Array>,
    /** Known syllables as written; undefined reads every syllable as itself. */
    private readonly words?: Set<string>,
    readonly decoder: TaggerDecoder = 'greedy',
    pairs?: Map<string, Float64Array>,
  ) {
    this.weights = weights ?? new Map();
    this.pairs = pairs ?? new Map();
    this.foldedWords = words ? new Set([...words].map(foldText)) : undefined;
  }

  /** The known syllables folded: a text typed without diacritics is checked against these. */
  private readonly foldedWords: Set<string> | undefined;

  static fromData(data: TaggerData): PerceptronTagger {
    return new PerceptronTagger(data.tags, rowsOf(data.weights), data.words ? new Set(data.words) : undefined, data.decoder ?? 'greedy', rowsOf(data.pairs ?? {}));
  }

  toData(): TaggerData {
    return {
      tags: this.tags,
      ...(this.decoder === 'viterbi' ? { decoder: this.decoder, pairs: rowsData(this.pairs) } : {}),
      ...(this.words ? { words: [...this.words].sort() } : {}),
      weights: rowsData(this.weights),
    };
  }

  /** Adds the rows of `feats` into `scores`. */
  private sum(feats: string[], scores: Float64Array): void {
    for (const feat of feats) {
      const row = this.weights.get(feat);
      if (!row) continue;
      for (let t = 0; t < scores.length; t++) scores[t]! += row[t]!;
    }
  }

  private best(feats: string[], scores: Float64Array): number {
    scores.fill(0);
    this.sum(feats, scores);
    let best = 0;
    for (let t = 1; t < scores.length; t++) if (scores[t]! > scores[best]!) best = t;
    return best;
  }

  private greedy(s: TaggedSentence, ids: Identities): string[] {
    const out: string[] = [];
    const scores = new Float64Array(this.tags.length);
    let prev = '<s>';
    let prev2 = '<s>';
    for (let i = 0; i < s.tokens.length; i++) {
      const tag = legal(this.tags[this.best(features(s, ids, i, prev, prev2), scores)]!, prev);
      out.push(tag);
      prev2 = prev;
      prev = tag;
    }
    return out;
  }

  private viterbi(s: TaggedSentence, ids: Identities, indexed?: { index: TaggerIndex; sentence: IndexedSentence }): string[] {
    const n = s.tokens.length;
    const k = this.tags.length;
    if (n === 0) return [];
    const allowedPair = this.allowedPairs();
    const base = new Float64Array(k);
    const trans = new Float64Array((k + 1) * k);
    let delta = new Float64Array(k);
    let next = new Float64Array(k);
    // Back pointers of every position, k a position, in one array.
    const back = new Int32Array(n * k);
    for (let i = 0; i < n; i++) {
      base.fill(0);
      trans.fill(0);
      if (indexed) indexed.index.add(indexed.sentence, i, base, trans);
      else {
        this.sum(emission(s, ids, i), base);
        for (const key of transitionKeys(s, ids, i)) {
          const row = this.pairs.get(key);
          if (row) for (let x = 0; x < row.length; x++) trans[x]! += row[x]!;
        }
      }
      next.fill(-Infinity);
      const from = i * k;
      back.fill(-1, from, from + k);
      for (let p = i === 0 ? -1 : 0; p < (i === 0 ? 0 : k); p++) {
        const before = p < 0 ? 0 : delta[p]!;
        if (before === -Infinity) continue;
        const at = (p + 1) * k;
        for (let t = 0; t < k; t++) {
          if (!allowedPair[at + t]) continue;
          const v = before + base[t]! + trans[at + t]!;
          if (v > next[t]!) {
            next[t] = v;
            back[from + t] = p;
          }
        }
      }
      const swap = delta;
      delta = next;
      next = swap;
    }
    let t = 0;
    for (let u = 1; u < k; u++) if (delta[u]! > delta[t]!) t = u;
    const out: string[] = new Array<string>(n);
    for (let i = n - 1; i >= 0; i--) {
      out[i] = this.tags[t]!;
      // -1: no way back (only when every score is lost); the tags before stay undefined, as they always did.
      t = t < 0 ? -1 : back[i * k + t]!;
    }
    return out;
  }

  private allowedCache: Uint8Array | undefined;

  /** BIO's legal (previous tag + 1, tag) pairs, as `pairs` indexes them. */
  private allowedPairs(): Uint8Array {
    if (this.allowedCache) return this.allowedCache;
    const k = this.tags.length;
    const out = new Uint8Array((k + 1) * k);
    for (let p = -1; p < k; p++) for (let t = 0; t < k; t++) out[(p + 1) * k + t] = allowed(p < 0 ? '<s>' : this.tags[p]!, this.tags[t]!) ? 1 : 0;
    this.allowedCache = out;
    return out;
  }

  /** `through`: 'strings' decodes through the feature strings as training does (the path `TaggerIndex` replaced; tests hold it to it). */
  tag(s: TaggedSentence, through: 'index' | 'strings' = 'index'): string[] {
    // A syllable is new when its spelling is: as written in a text with diacritics ("váy" is new though
    // "vay" is known), folded in a text without any (where "vay" may be either).
    const marked = s.tokens.some((t) => t.text !== t.folded);
    const known = marked ? this.words : this.foldedWords;
    const ids = identities(s, known ? (t) => !known.has(marked ? t.text : t.folded) : () => false);
    if (this.decoder !== 'viterbi') return this.greedy(s, ids);
    if (through === 'strings') return this.viterbi(s, ids);
    // Indexed on the first prediction (training decodes through the feature strings while the rows change).
    this.index ??= new TaggerIndex(this.weights, this.pairs);
    return this.viterbi(s, ids, { index: this.index, sentence: this.indexed(s, ids, this.index) });
  }

  private index: TaggerIndex | undefined;

  /** The sentence as `TaggerIndex.add` reads it: the identities `emission` and `transitionKeys` read, as ids. */
  private indexed(s: TaggedSentence, ids: Identities, index: TaggerIndex): IndexedSentence {
    const n = s.tokens.length;
    const folded = new Int32Array(n + 4);
    const written = new Int32Array(n + 1);
    const shapes: string[] = [shapeOf(s.surface[-1] ?? '')];
    folded[0] = folded[1] = index.id('<s>');
    folded[n + 2] = folded[n + 3] = index.id('</s>');
    written[0] = index.id('<s>');
    for (let i = 0; i < n; i++) {
      folded[i + 2] = index.id(ids.folded[i]!);
      written[i + 1] = index.id(ids.written[i]!);
      shapes.push(shapeOf(s.surface[i] ?? ''));
    }
    return { folded, written, shapes, hints: s.hints };
  }

  /**
   * `wordDropout`: the chance a syllable's identity is hidden in one pass over a sentence (0: none, and no "<unk>" at prediction);
   * `valueDropout` (default `wordDropout`): that chance for the syllables of a tagged value. Values are an open class, so a new
   * syllable at prediction is more often a value than the template words; hiding values more teaches "<unk>" that.
   * `decoder`: greedy trains token by token on the gold history; viterbi is a structured perceptron (the whole sequence decoded, then corrected).
   */
  static train(
    sentences: TaggedSentence[],
    opts: { epochs: number; seed: number; wordDropout?: number; valueDropout?: number; decoder?: TaggerDecoder; onEpoch?: (done: number, total: number) => void },
  ): PerceptronTagger {
    const tagSet = new Set<string>(['O']);
    for (const s of sentences) for (const t of s.tags ?? []) tagSet.add(t);
    const tags = [...tagSet];
    const tagIndex = new Map(tags.map((t, i) => [t, i]));
    const weights = new Map<string, Float64Array>();
    const pairs = new Map<string, Float64Array>();
    const totals = new Map<Float64Array, Float64Array>();
    const stamps = new Map<Float64Array, Float64Array>();
    const dropout = opts.wordDropout ?? 0;
    const valueDropout = opts.valueDropout ?? dropout;
    // Each token hidden with its own chance: a value's syllables at `valueDropout`, the others at `dropout`.
    const hide = (s: TaggedSentence) => {
      let i = 0;
      return () => {
        const p = s.tags![i++] === 'O' ? dropout : valueDropout;
        return p > 0 && random() < p;
      };
    };
    const decoder = opts.decoder ?? 'greedy';
    const words = dropout > 0 || valueDropout > 0 ? new Set(sentences.flatMap((s) => s.tokens.map((t) => t.text))) : undefined;
    const tagger = new PerceptronTagger(tags, weights, words, decoder, pairs);
    const scores = new Float64Array(tags.length);
    let instance = 0;
    // Averaging made lazy: each weight's running total is brought up to date when it changes and at the end.
    const change = (rows: Map<string, Float64Array>, size: number, feat: string, at: number, delta: number) => {
      let row = rows.get(feat);
      if (!row) {
        row = new Float64Array(size);
        rows.set(feat, row);
        totals.set(row, new Float64Array(size));
        stamps.set(row, new Float64Array(size));
      }
      const total = totals.get(row)!;
      const stamp = stamps.get(row)!;
      total[at]! += (instance - stamp[at]!) * row[at]!;
      stamp[at] = instance;
      row[at]! += delta;
    };
    const k = tags.length;
    const update = (feat: string, tag: number, delta: number) => change(weights, k, feat, tag, delta);
    /** Emission and transition features of token i for `tag` after `prev`. */
    const updateAt = (s: TaggedSentence, ids: Identities, i: number, prev: string, tag: string, delta: number) => {
      const t = tagIndex.get(tag)!;
      for (const feat of emission(s, ids, i)) update(feat, t, delta);
      const at = (prev === '<s>' ? 0 : tagIndex.get(prev)! + 1) * k + t;
      for (const key of transitionKeys(s, ids, i)) change(pairs, (k + 1) * k, key, at, delta);
    };
    const order = sentences.filter((s) => s.tags && s.tokens.length > 0);
    const random = seededRandom(opts.seed);
    for (let epoch = 0; epoch < opts.epochs; epoch++) {
      opts.onEpoch?.(epoch, opts.epochs);
      shuffleInPlace(order, random);
      for (const s of order) {
        const ids = identities(s, hide(s));
        if (decoder === 'viterbi') {
          instance++;
          const guess = tagger.viterbi(s, ids);
          const gold = s.tags!;
          for (let i = 0; i < gold.length; i++) {
            const goldPrev = i > 0 ? gold[i - 1]! : '<s>';
            const guessPrev = i > 0 ? guess[i - 1]! : '<s>';
            if (gold[i] === guess[i] && goldPrev === guessPrev) continue;
            updateAt(s, ids, i, goldPrev, gold[i]!, 1);
            updateAt(s, ids, i, guessPrev, guess[i]!, -1);
          }
          continue;
        }
        let prev = '<s>';
        let prev2 = '<s>';
        for (let i = 0; i < s.tokens.length; i++) {
          instance++;
          const feats = features(s, ids, i, prev, prev2);
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
    opts.onEpoch?.(opts.epochs, opts.epochs);
    for (const row of [...weights.values(), ...pairs.values()]) {
      const total = totals.get(row)!;
      const stamp = stamps.get(row)!;
      for (let t = 0; t < row.length; t++) {
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
