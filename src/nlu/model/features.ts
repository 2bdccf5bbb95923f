import { prepare, type PreparedText, type Token } from './text.js';

/**
 * Which features the intent classifier reads. `syllables`: syllable unigrams
 * and bigrams of the text as written. `folded`: the same over the
 * accent-folded text, so chat typed without diacritics meets the same
 * features. `chars`: accent-folded character n-grams inside and across
 * syllable boundaries, which survive typos and slang spellings.
 */
export interface FeatureSet {
  syllables: boolean;
  folded: boolean;
  /** Character n-gram lengths, e.g. [3, 4]; empty for none. */
  chars: number[];
  /**
   * `within`: character n-grams inside each syllable (with its boundaries,
   * " ban "), none across two; `across` (the default): over the whole folded
   * text, so "g la" of "không lấy" is one.
   */
  charScope?: 'within' | 'across';
  /** The character n-grams of the folded words (the default) or of the words as written, lower case. */
  charForm?: 'folded' | 'text';
  /**
   * The words of a free-text entity's span (tagged in training, found by
   * the tagger at prediction) stand only as the entity: no syllable or
   * character n-gram of theirs, so a training sample's person or product
   * name is not learnt as a word of its intent. (Listed keywords keep their
   * words: a synonym may be an intent's word too, "thanh toán".)
   */
  maskWords?: boolean;
  /**
   * Learn each sample twice, through its written view (syllables, bigrams
   * and character n-grams as written, `w`, `b`, `cw`) and its folded view
   * (`f`, `fb`, `c`), and read a text through the view it was typed in:
   * one with diacritics through the written one, so its "thôi" is not the
   * folded "thoi" of "thời tiết".
   */
  views?: boolean;
  /**
   * Weight of each feature group (the prefix before ":" of a feature string:
   * `w` syllables, `b` syllable bigrams, `f`/`fb` the same folded, `c`
   * character n-grams, `cw` the same with diacritics (views only), `e`
   * entities); 1 when not given. Whole words carry an
   * unseen phrasing better than the many character n-grams of its function
   * words, so the sets below give bigrams and n-grams less.
   */
  groupWeights?: Partial<Record<FeatureGroup, number>>;
  /** Multiply each feature by its spread weight learnt from the training data (`spreadWeights`). */
  spread?: boolean;
  /** Count the classes holding a feature by the entropy of its class distribution (`entropySpread`) instead of presence. */
  spreadEntropy?: boolean;
  /**
   * Syllables as written (`w`, `b`) keyed by `toneKey`: a tone placed on
   * either vowel ("huỷ", "hủy") is one syllable.
   */
  toneKeys?: boolean;
  /**
   * At prediction, a syllable typed with diacritics whose marked spelling
   * the model never saw (as a `w` feature) is not read through its folded
   * form: its "f" feature and the folded bigrams around it are dropped (and,
   * with `grams`, its character n-grams), so "thôi" is not the "thoi" of
   * "thời". Unmarked syllables keep their folded features.
   */
  strictMarks?: 'word' | 'grams';
  /** The spread weight raised to this power (1 when not given): above 1 a word of few intents counts more against the words most intents share. */
  spreadPower?: number;
}

/** Which features of a text are read: all, or those of one view (see `FeatureSet.views`). */
export type FeatureView = 'all' | 'folded' | 'written';

export type FeatureGroup = 'w' | 'b' | 'f' | 'fb' | 'c' | 'cw' | 'e';

/** `weightedWithinMasked` with the syllables as written keyed by `toneKey`: the base of the strict-marks sets. */
const WITHIN_MASKED_TONES = {
  syllables: true,
  folded: true,
  chars: [3, 5],
  charScope: 'within',
  maskWords: true,
  toneKeys: true,
  groupWeights: { b: 0.5, fb: 0.5, c: 0.5 },
  spread: true,
} as const satisfies FeatureSet;

export const FEATURE_SETS = {
  syllablesOnly: { syllables: true, folded: false, chars: [] },
  syllablesFolded: { syllables: true, folded: true, chars: [] },
  syllablesFoldedChars: { syllables: true, folded: true, chars: [2, 3, 4] },
  /** The same features, words first: bigrams and character n-grams at half weight, each feature times its spread weight. */
  weighted: { syllables: true, folded: true, chars: [2, 3, 4], groupWeights: { b: 0.5, fb: 0.5, c: 0.5 }, spread: true },
  /** `weighted` with the character n-grams inside syllables only. */
  weightedWithin: { syllables: true, folded: true, chars: [2, 3, 4], charScope: 'within', groupWeights: { b: 0.5, fb: 0.5, c: 0.5 }, spread: true },
  /** `weighted`, each sample learnt through its written and its folded view apart. */
  weightedViews: { syllables: true, folded: true, chars: [2, 3, 4], views: true, groupWeights: { b: 0.5, fb: 0.5, c: 0.5, cw: 0.5 }, spread: true },
  /** `weightedWithinMasked` learnt and read through views. */
  weightedWithinMaskedViews: {
    syllables: true,
    folded: true,
    chars: [3, 5],
    charScope: 'within',
    maskWords: true,
    views: true,
    groupWeights: { b: 0.5, fb: 0.5, c: 0.5, cw: 0.5 },
    spread: true,
  },
  /**
   * Every feature as written (syllables, bigrams, character n-grams of the
   * marked text), none folded: meant to learn from each sample and its copy
   * without diacritics (`foldedCopies`), so an unmarked syllable reads as
   * all its marked forms and a marked one only as itself.
   */
  asWritten: { syllables: true, folded: false, chars: [3, 5], charScope: 'within', charForm: 'text', maskWords: true, groupWeights: { b: 0.5, c: 0.5 }, spread: true },
  /** `weightedWithinMasked` with the entropy spread. */
  weightedWithinMaskedEntropy: {
    syllables: true,
    folded: true,
    chars: [3, 5],
    charScope: 'within',
    maskWords: true,
    spreadEntropy: true,
    groupWeights: { b: 0.5, fb: 0.5, c: 0.5 },
    spread: true,
  },
  /** `weighted` with the spread weights squared. */
  weightedSharp: { syllables: true, folded: true, chars: [2, 3, 4], spreadPower: 2, groupWeights: { b: 0.5, fb: 0.5, c: 0.5 }, spread: true },
  /**
   * The default: `weighted` with 3- and 5-grams inside syllables (none across
   * two: the "g la" across "không lấy" leaned to a loan intent), free-text
   * values standing only as their entity.
   */
  weightedWithinMasked: { syllables: true, folded: true, chars: [3, 5], charScope: 'within', maskWords: true, groupWeights: { b: 0.5, fb: 0.5, c: 0.5 }, spread: true },
  /** `weightedWithinMasked` with the syllables as written keyed by `toneKey` ("huỷ" is "hủy"). */
  weightedWithinMaskedTones: WITHIN_MASKED_TONES,
  /** `weightedWithinMaskedTones`, a marked syllable never seen as written not read through its folded syllable and bigrams (`strictMarks`). */
  weightedWithinMaskedStrict: { ...WITHIN_MASKED_TONES, strictMarks: 'word' },
  /** The same, its character n-grams dropped too. */
  weightedWithinMaskedStrictGrams: { ...WITHIN_MASKED_TONES, strictMarks: 'grams' },
  /** `weighted` without character n-grams. */
  weightedNoChars: { syllables: true, folded: true, chars: [], groupWeights: { b: 0.5, fb: 0.5 }, spread: true },
} as const satisfies Record<string, FeatureSet>;

/** The group of a feature string (its prefix). */
export function featureGroup(feature: string): FeatureGroup {
  return feature.slice(0, feature.indexOf(':')) as FeatureGroup;
}

/**
 * Per-feature weights for the linear models: the group weight times, with
 * `spread`, log((k + 1) / (k_f + 1)) + 1 where k is the number of classes and
 * k_f the number of classes whose training examples hold the feature. A word
 * every intent uses ("cho", "giúp", "không", an opener) weighs 1; one only a
 * single intent uses weighs log((k + 1) / 2) + 1: function words are weighted
 * down by what the data shows, without a stop-word list.
 */
export function spreadWeights(vocabulary: string[], examples: { features: number[]; label: number }[], classes: number, set: FeatureSet): Float32Array {
  const out = new Float32Array(vocabulary.length);
  const spread = set.spread ? (set.spreadEntropy ? entropySpread(vocabulary.length, examples, classes) : classCounts(vocabulary.length, examples, classes)) : undefined;
  for (let f = 0; f < vocabulary.length; f++) {
    const group = set.groupWeights?.[featureGroup(vocabulary[f]!)] ?? 1;
    out[f] = group * (spread ? (Math.log((classes + 1) / (spread[f]! + 1)) + 1) ** (set.spreadPower ?? 1) : 1);
  }
  return out;
}

/** Per feature, the number of classes whose examples hold it. */
function classCounts(features: number, examples: { features: number[]; label: number }[], classes: number): Float64Array {
  const seen = new Uint8Array(features * classes);
  const spread = new Float64Array(features);
  for (const e of examples) {
    for (const f of e.features) {
      const k = f * classes + e.label;
      if (seen[k]) continue;
      seen[k] = 1;
      spread[f]! += 1;
    }
  }
  return spread;
}

/**
 * Per feature, the effective number of classes holding it: exp of the
 * entropy of P(class | feature) with classes weighted equally (each class's
 * count of the feature over its number of examples). A feature all of one
 * class but for two stray samples of another counts about 1, not 2.
 */
function entropySpread(features: number, examples: { features: number[]; label: number }[], classes: number): Float64Array {
  const counts = new Float64Array(features * classes);
  const sizes = new Float64Array(classes);
  for (const e of examples) {
    sizes[e.label]! += 1;
    for (const f of e.features) counts[f * classes + e.label]! += 1;
  }
  const spread = new Float64Array(features);
  for (let f = 0; f < features; f++) {
    let total = 0;
    for (let c = 0; c < classes; c++) if (sizes[c]! > 0) total += counts[f * classes + c]! / sizes[c]!;
    let entropy = 0;
    for (let c = 0; c < classes; c++) {
      const p = sizes[c]! > 0 && total > 0 ? counts[f * classes + c]! / sizes[c]! / total : 0;
      if (p > 0) entropy -= p * Math.log(p);
    }
    spread[f] = Math.exp(entropy);
  }
  return spread;
}

export type FeatureSetName = keyof typeof FEATURE_SETS;

function masked(masks: EntityMask[], token: number): boolean {
  for (const m of masks) if (m.hide && token >= m.first && token < m.last) return true;
  return false;
}

/** Masks past which `masked` and `maskStarting` are read from per-token tables (a long text of numbers has thousands). */
const MASK_TABLE_FROM = 8;

/** Per token: whether a hiding mask covers it (`masked`) and the mask starting there (`maskStarting`, the last listed). */
function maskTables(masks: EntityMask[], count: number): { hidden: Uint8Array; starting: (EntityMask | undefined)[] } {
  const hidden = new Uint8Array(count);
  const starting: (EntityMask | undefined)[] = new Array<EntityMask | undefined>(count).fill(undefined);
  for (const m of masks) {
    if (m.hide) hidden.fill(1, Math.max(0, m.first), Math.min(count, m.last));
    if (m.first >= 0 && m.first < count) starting[m.first] = m;
  }
  return { hidden, starting };
}

const DIGITS = /\d/;

function shape(token: string): string {
  return DIGITS.test(token) ? '#num' : token;
}

/** A run of tokens known to be an entity (a listed keyword, a number, a date). */
export interface EntityMask {
  entity: string;
  first: number;
  last: number;
  /** Its words stand only as the entity when the feature set has `maskWords` (a free-text value). */
  hide?: boolean;
}

/**
 * Feature strings of a text (duplicates removed). Words inside `masks` also
 * count as their entity: the bigrams around "<city>" are shared by every city,
 * so "bay tới Huế" and "bay tới Đà Lạt" look alike to the classifier.
 */
export function featureStrings(input: string | PreparedText, set: FeatureSet, masks: EntityMask[] = [], known?: (feature: string) => boolean): string[] {
  const text = typeof input === 'string' ? prepare(input) : input;
  const out = new Set<string>();
  const maskAt = new Map<number, EntityMask>();
  for (const m of masks) maskAt.set(m.first, m);
  // With `strictMarks` at prediction: marked syllables whose marked spelling the model never saw have no folded form.
  const strict = set.strictMarks && known ? (t: Token) => t.text !== t.folded && !known(`w:${writtenKey(t, set)}`) : undefined;
  // Word tokens, a masked run standing as one "<entity>" word for the bigrams.
  const sequence: { text: string; folded: string }[] = [];
  for (let i = 0; i < text.tokens.length; i++) {
    const mask = maskAt.get(i);
    if (mask) {
      out.add(`e:${mask.entity}`);
      const word = shape(`<${mask.entity}>`);
      sequence.push({ text: word, folded: word });
      i = mask.last - 1;
      continue;
    }
    const t = text.tokens[i]!;
    if (/[\p{L}\p{N}]/u.test(t.text)) sequence.push({ text: writtenKey(t, set), folded: strict?.(t) ? UNFOLDED : shape(t.folded) });
  }
  const hidden = set.maskWords && masks.length >= MASK_TABLE_FROM ? maskTables(masks, text.tokens.length).hidden : undefined;
  const words = text.tokens.filter((t, i) => /[\p{L}\p{N}]/u.test(t.text) && !(set.maskWords && (hidden ? hidden[i] === 1 : masked(masks, i))));
  if (set.syllables) {
    for (const w of words) out.add(`w:${writtenKey(w, set)}`);
    let prev = '<s>';
    for (const w of sequence) {
      out.add(`b:${prev} ${w.text}`);
      prev = w.text;
    }
    out.add(`b:${prev} </s>`);
  }
  if (set.folded) {
    for (const w of words) if (!strict?.(w)) out.add(`f:${shape(w.folded)}`);
    let prev = '<s>';
    for (const w of sequence) {
      out.add(`fb:${prev} ${w.folded}`);
      prev = w.folded;
    }
    out.add(`fb:${prev} </s>`);
  }
  if (set.chars.length > 0) {
    addGrams(out, 'c', set.strictMarks === 'grams' && strict ? words.filter((w) => !strict(w)) : words, set, set.charForm ?? 'folded');
    // The written view's own n-grams, with the diacritics: "thôi" shares none with "thời".
    if (set.views) addGrams(out, 'cw', words, set, 'text');
  }
  return [...out];
}

/** Stands for a syllable's folded form in the folded bigrams when it has none (`strictMarks`): no bigram holds it. */
const UNFOLDED = '?';

const TONES: Record<string, string> = { '\u0301': '1', '\u0300': '2', '\u0309': '3', '\u0303': '4', '\u0323': '5' };
const toneCache = new Map<string, string>();
const ASCII = /^[\x20-\x7e]*$/;

/**
 * A syllable with its tone mark taken off its vowel and written after it as
 * a digit (1 sắc, 2 huyền, 3 hỏi, 4 ngã, 5 nặng), the other marks kept: the
 * old and new placements of a tone ("huỷ" and "hủy", "hoà" and "hòa") are
 * one key. A syllable without a tone is itself.
 */
export function toneKey(word: string): string {
  const hit = toneCache.get(word);
  if (hit !== undefined) return hit;
  let out = word;
  if (!ASCII.test(word)) {
    let base = '';
    let tone = '';
    for (const ch of word.normalize('NFD')) {
      const t = TONES[ch];
      if (t) tone = t;
      else base += ch;
    }
    if (tone) out = base.normalize('NFC') + tone;
  }
  if (toneCache.size < 50_000) toneCache.set(word, out);
  return out;
}

/** A syllable's key among the syllables as written: its shape, with the tone moved after it under `toneKeys`. */
function writtenKey(t: Token, set: FeatureSet): string {
  const s = shape(t.text);
  return set.toneKeys && s !== '#num' ? toneKey(s) : s;
}

/** Character n-grams of the words' `form`, inside each or across them (see `FeatureSet.charScope`). */
function addGrams(out: Set<string>, group: 'c' | 'cw', words: Token[], set: FeatureSet, form: 'folded' | 'text'): void {
  const pieces = set.charScope === 'within' ? words.map((w) => ` ${shape(w[form])} `) : [` ${words.map((w) => shape(w[form])).join(' ')} `];
  for (const n of set.chars) {
    for (const piece of pieces) {
      for (let i = 0; i + n <= piece.length; i++) {
        const gram = piece.slice(i, i + n);
        if (gram.trim()) out.add(`${group}:${gram}`);
      }
    }
  }
}

/** Feature strings -> indices, fixed after training. */
export class Vocabulary {
  readonly index: Map<string, number>;

  constructor(entries: Iterable<string> = []) {
    this.index = new Map();
    for (const e of entries) if (!this.index.has(e)) this.index.set(e, this.index.size);
  }

  get size(): number {
    return this.index.size;
  }

  add(feature: string): number {
    let i = this.index.get(feature);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(feature, i);
    }
    return i;
  }

  /** Known features' indices; unseen ones are dropped. */
  lookup(features: string[]): number[] {
    const out: number[] = [];
    for (const f of features) {
      const i = this.index.get(f);
      if (i !== undefined) out.push(i);
    }
    return out;
  }

  entries(): string[] {
    return [...this.index.keys()];
  }
}

/** A word of the bigram sequence: its keys as written and folded, and the bigrams they start. */
interface SequenceWord {
  text: string;
  folded: string;
  textNext: Map<string, number> | undefined;
  foldedNext: Map<string, number> | undefined;
}

/**
 * What `FeatureIndex.ids` reads of one syllable, worked out once per spelling: its written key (`text`), its
 * folded one in the bigrams (`folded`, `UNFOLDED` when `strict`), its unigram ids (-1: unknown), and its
 * character n-gram ids per length of the set's `chars` (`charScope: 'within'` only).
 */
interface Syllable extends SequenceWord {
  token: Token;
  /** The token's folded form the reading was made from. */
  folded0: string;
  /** Holds a letter or a digit. */
  word: boolean;
  wordId: number;
  foldedId: number;
  /** `strictMarks`: marked, and its marked spelling unknown. */
  strict: boolean;
  grams: number[][] | undefined;
  writtenGrams: number[][] | undefined;
}

/** Bound of the syllable memo (entries, about 600-700 bytes each with the tone keys: about 5 MB at most per model, and a prediction thread keeps up to 64 models; cleared when full, so hostile input cannot grow it). */
const SYLLABLE_MEMO = 8_192;
/** Reused buffers of `FeatureIndex.ids` are dropped after a text longer than this (tokens or ids). */
const KEPT_BUFFER = 4096;
/** Longer tokens are read afresh each time (a hostile text's long runs are not kept). */
const SYLLABLE_LENGTH = 32;

/** The mask starting at a token (the last listed, as a map by start would keep). */
function maskStarting(masks: EntityMask[], token: number): EntityMask | undefined {
  for (let k = masks.length - 1; k >= 0; k--) if (masks[k]!.first === token) return masks[k];
  return undefined;
}

interface GramNode {
  next: Map<number, GramNode>;
  /** Feature id of the n-gram ending here, -1 when it is not in the vocabulary. */
  id: number;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The vocabulary compiled for prediction: the features of a text as ids,
 * in the order and with the duplicates removed as `featureStrings` then
 * `Vocabulary.lookup` give them (so scores are the same to the last bit),
 * without building a string per feature. Words look up a map per group,
 * bigrams a map of maps (previous word, word), character n-grams walk a trie
 * of UTF-16 code units; a feature the vocabulary lacks is dropped where it
 * is met.
 */
export class FeatureIndex {
  private readonly words = new Map<string, number>();
  private readonly folded = new Map<string, number>();
  private readonly bigrams = new Map<string, Map<string, number>>();
  private readonly foldedBigrams = new Map<string, Map<string, number>>();
  private readonly entities = new Map<string, number>();
  private readonly grams: GramNode = { next: new Map(), id: -1 };
  private readonly writtenGrams: GramNode = { next: new Map(), id: -1 };
  /** Per feature id, the `stamp` of the last text it was taken for (duplicates removed without a set). */
  private readonly seen: Uint32Array;
  private stamp = 0;
  /** Per n-gram length, the ids found in one text. */
  private readonly gramBuffers: number[][] = [];
  /** The ids of the text being read: `take` adds to the first `count` of the buffer. */
  private idBuffer: number[] = [];
  private count = 0;
  /** Each syllable's reading by its lower-case text, for `memoSet` (chat reuses a small vocabulary): bounded, cleared when full. */
  private readonly memo = new Map<string, Syllable>();
  private memoSet: FeatureSet | undefined;
  private readonly entityWords = new Map<string, SequenceWord>();
  private sequenceBuffer: SequenceWord[] = [];
  private wordBuffer: Syllable[] = [];
  private tokenBuffer: Syllable[] = [];
  /** The bigrams after "<s>", as written and folded. */
  private bigramStart: Map<string, number> | undefined;
  private foldedBigramStart: Map<string, number> | undefined;

  constructor(vocabulary: readonly string[]) {
    this.seen = new Uint32Array(vocabulary.length);
    vocabulary.forEach((feature, id) => {
      const colon = feature.indexOf(':');
      const group = feature.slice(0, colon);
      const key = feature.slice(colon + 1);
      if (group === 'w') setOnce(this.words, key, id);
      else if (group === 'f') setOnce(this.folded, key, id);
      else if (group === 'e') setOnce(this.entities, key, id);
      else if (group === 'b' || group === 'fb') {
        // Generated bigrams hold one space (no token holds one); another key can never be generated.
        const space = key.indexOf(' ');
        if (space < 0) return;
        const pairs = group === 'b' ? this.bigrams : this.foldedBigrams;
        let second = pairs.get(key.slice(0, space));
        if (!second) pairs.set(key.slice(0, space), (second = new Map()));
        setOnce(second, key.slice(space + 1), id);
      } else if (group === 'c' || group === 'cw') {
        let node = group === 'c' ? this.grams : this.writtenGrams;
        for (let i = 0; i < key.length; i++) {
          const code = key.charCodeAt(i);
          let child = node.next.get(code);
          if (!child) node.next.set(code, (child = { next: new Map(), id: -1 }));
          node = child;
        }
        if (node.id < 0) node.id = id;
      }
    });
    this.bigramStart = this.bigrams.get('<s>');
    this.foldedBigramStart = this.foldedBigrams.get('<s>');
  }

  /**
   * Ids of the known features of a text (see `featureStrings`). `view`:
   * `folded` leaves out the syllables and bigrams as written (`w`, `b`), as a
   * text typed without diacritics is read; `written` the folded ones (`f`,
   * `fb`).
   */
  ids(text: PreparedText, set: FeatureSet, masks: EntityMask[] = [], view: FeatureView = 'all'): number[] {
    // Gathered in a reused buffer (`count` of it in use; setting an array's length to 0 drops its storage), answered as a copy.
    this.count = 0;
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    if (set !== this.memoSet) {
      this.memo.clear();
      this.memoSet = set;
    }
    const tokens = text.tokens;
    // Each token's reading, and the words among them (those a free-text mask hides left out).
    const read = this.tokenBuffer;
    const words = this.wordBuffer;
    let wordCount = 0;
    const table = masks.length >= MASK_TABLE_FROM ? maskTables(masks, tokens.length) : undefined;
    for (let i = 0; i < tokens.length; i++) {
      const s = (read[i] = this.syllable(tokens[i]!, set));
      if (s.word && !(set.maskWords && masks.length > 0 && (table ? table.hidden[i] === 1 : masked(masks, i)))) words[wordCount++] = s;
    }
    // The bigram sequence: word tokens, a masked run standing as one "<entity>" word.
    const sequence = this.sequenceBuffer;
    let sequenceCount = 0;
    for (let i = 0; i < tokens.length; i++) {
      const mask = masks.length === 0 ? undefined : table ? table.starting[i] : maskStarting(masks, i);
      if (mask) {
        this.take(this.entities.get(mask.entity));
        sequence[sequenceCount++] = this.entityWord(mask.entity);
        i = mask.last - 1;
        continue;
      }
      const s = read[i]!;
      if (s.word) sequence[sequenceCount++] = s;
    }
    if (set.syllables && view !== 'folded') {
      for (let k = 0; k < wordCount; k++) this.take(words[k]!.wordId);
      let next = this.bigramStart;
      for (let k = 0; k < sequenceCount; k++) {
        const s = sequence[k]!;
        this.take(next?.get(s.text));
        next = s.textNext;
      }
      this.take(next?.get('</s>'));
    }
    if (set.folded && view !== 'written') {
      for (let k = 0; k < wordCount; k++) if (!words[k]!.strict) this.take(words[k]!.foldedId);
      let next = this.foldedBigramStart;
      for (let k = 0; k < sequenceCount; k++) {
        const s = sequence[k]!;
        this.take(next?.get(s.folded));
        next = s.foldedNext;
      }
      this.take(next?.get('</s>'));
    }
    if (set.chars.length > 0) {
      if (set.charScope === 'within') {
        // Each syllable's n-grams are memoised with it, per length in `set.chars` order: taken length by length, word by word.
        const strictGrams = set.strictMarks === 'grams';
        if (view !== 'written') {
          for (let k = 0; k < set.chars.length; k++) {
            for (let x = 0; x < wordCount; x++) {
              const w = words[x]!;
              if (!(strictGrams && w.strict)) for (const id of w.grams![k]!) this.take(id);
            }
          }
        }
        if (set.views && view !== 'folded')
          for (let k = 0; k < set.chars.length; k++) for (let x = 0; x < wordCount; x++) for (const id of words[x]!.writtenGrams![k]!) this.take(id);
      } else {
        const list = words.slice(0, wordCount).map((w) => w.token);
        if (view !== 'written') this.takeGrams(this.grams, set.strictMarks === 'grams' ? list.filter((_, k) => !words[k]!.strict) : list, set, set.charForm ?? 'folded');
        if (set.views && view !== 'folded') this.takeGrams(this.writtenGrams, list, set, 'text');
      }
    }
    const ids = this.idBuffer.slice(0, this.count);
    // A long text's buffers are not kept.
    if (tokens.length > KEPT_BUFFER || this.count > KEPT_BUFFER) {
      this.idBuffer = [];
      this.tokenBuffer = [];
      this.wordBuffer = [];
      this.sequenceBuffer = [];
    }
    return ids;
  }

  /** Adds a known feature id to the text's ids unless already there. */
  private take(id: number | undefined): void {
    if (id === undefined || id < 0 || this.seen[id] === this.stamp) return;
    this.seen[id] = this.stamp;
    this.idBuffer[this.count++] = id;
  }

  /** A token's memoised reading (see `Syllable`); a long token, or one whose folded form is not its text's (a hand-made text), is read afresh. */
  private syllable(t: Token, set: FeatureSet): Syllable {
    const hit = this.memo.get(t.text);
    if (hit !== undefined && hit.folded0 === t.folded) return hit;
    const s = this.readSyllable(t, set);
    if (hit === undefined && t.text.length <= SYLLABLE_LENGTH) {
      if (this.memo.size >= SYLLABLE_MEMO) this.memo.clear();
      this.memo.set(t.text, s);
    }
    return s;
  }

  private readSyllable(t: Token, set: FeatureSet): Syllable {
    const written = writtenKey(t, set);
    const wordId = this.words.get(written) ?? -1;
    // `strictMarks`: a marked syllable whose marked spelling is not in the vocabulary has no folded features.
    const strict = set.strictMarks !== undefined && t.text !== t.folded && wordId < 0;
    const foldedShape = shape(t.folded);
    const folded = strict ? UNFOLDED : foldedShape;
    let grams: number[][] | undefined;
    let writtenGrams: number[][] | undefined;
    if (set.chars.length > 0 && set.charScope === 'within') {
      grams = this.gramsOf(this.grams, ` ${shape(set.charForm === 'text' ? t.text : t.folded)} `, set.chars);
      if (set.views) writtenGrams = this.gramsOf(this.writtenGrams, ` ${shape(t.text)} `, set.chars);
    }
    return {
      token: t,
      folded0: t.folded,
      word: WORD_CHAR.test(t.text),
      text: written,
      folded,
      wordId,
      strict,
      foldedId: this.folded.get(foldedShape) ?? -1,
      textNext: this.bigrams.get(written),
      foldedNext: this.foldedBigrams.get(folded),
      grams,
      writtenGrams,
    };
  }

  /** The known n-grams of one piece, per length of `lengths` (in its order), each left to right. */
  private gramsOf(root: GramNode, piece: string, lengths: readonly number[]): number[][] {
    const longest = Math.max(...lengths);
    const found: number[][] = [];
    for (let n = 0; n <= longest; n++) found.push([]);
    this.walkGrams(root, piece, longest, found);
    return lengths.map((n) => found[n]!);
  }

  /** The "<entity>" word a masked run stands as in the bigrams. */
  private entityWord(entity: string): SequenceWord {
    let w = this.entityWords.get(entity);
    if (!w) {
      const word = shape(`<${entity}>`);
      w = { text: word, folded: word, textNext: this.bigrams.get(word), foldedNext: this.foldedBigrams.get(word) };
      if (this.entityWords.size >= SYLLABLE_MEMO) this.entityWords.clear();
      this.entityWords.set(entity, w);
    }
    return w;
  }

  /**
   * The known n-grams of the words' `form` under `root`. One walk down the trie from each position finds the
   * n-grams of every length there; they are taken length by length (in `set.chars` order), each length piece by
   * piece and left to right, as `featureStrings` adds them.
   */
  private takeGrams(root: GramNode, words: Token[], set: FeatureSet, form: 'folded' | 'text'): void {
    const longest = Math.max(...set.chars);
    const found = this.gramBuffers;
    for (let n = 1; n <= longest; n++) found[n] = found[n] ?? [];
    for (let n = 1; n <= longest; n++) found[n]!.length = 0;
    if (set.charScope === 'within') {
      for (const w of words) this.walkGrams(root, ` ${shape(w[form])} `, longest, found);
    } else {
      let joined = ' ';
      for (const w of words) joined += `${shape(w[form])} `;
      if (words.length === 0) joined = '  ';
      this.walkGrams(root, joined, longest, found);
    }
    for (const n of set.chars) for (const id of found[n] ?? []) this.take(id);
  }

  /** The known n-grams (up to `longest`) starting at each position of `piece`, pushed to `found[n]` left to right. */
  private walkGrams(root: GramNode, piece: string, longest: number, found: number[][]): void {
    for (let i = 0; i < piece.length; i++) {
      let node: GramNode | undefined = root;
      for (let n = 1; n <= longest && i + n <= piece.length; n++) {
        node = node.next.get(piece.charCodeAt(i + n - 1));
        if (!node) break;
        if (node.id >= 0) found[n]!.push(node.id);
      }
    }
  }
}

function setOnce(map: Map<string, number>, key: string, id: number): void {
  if (!map.has(key)) map.set(key, id);
}
