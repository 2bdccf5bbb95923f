import { prepare, type PreparedText, type Token } from './text.js';

/**
 * The intent classifier's features of a text, one set (chosen on the generated evaluation sets; the candidates
 * compared are in git's history of eval/nlu):
 * - `w`: syllables as written, keyed by `toneKey` ("huỷ" is "hủy"), and `b` their bigrams;
 * - `f`, `fb`: the same over the accent-folded text, so chat typed without diacritics meets the same features;
 * - `c`: accent-folded character 3- and 5-grams inside each syllable (" ban "), which survive typos and slang
 *   spellings (none across two syllables: the "g la" across "không lấy" leaned to a loan intent);
 * - `e`: the entities found in the text; a run of an entity's tokens stands as one "<entity>" word in the bigrams.
 * A free-text entity's words stand only as the entity (a training sample's person or product name is not a word
 * of its intent); listed keywords keep their words (a synonym may be an intent's word too, "thanh toán").
 * At prediction, a syllable typed with diacritics whose marked spelling the model never saw is not read through its
 * folded form (no `f`, folded bigrams or n-grams), so "thôi" is not the "thoi" of "thời".
 */
export const FEATURE_SET = 'weightedWithinMaskedStrictGrams';
export type FeatureSetName = typeof FEATURE_SET;

/** Character n-gram lengths, taken in this order. */
const CHAR_LENGTHS = [3, 5] as const;
const LONGEST_GRAM = 5;

/**
 * Weight of each feature group (the prefix before ":" of a feature string); 1 when not given. Whole words carry an
 * unseen phrasing better than the many character n-grams of its function words.
 */
const GROUP_WEIGHTS: Partial<Record<FeatureGroup, number>> = { b: 0.5, fb: 0.5, c: 0.5 };

/** Which features of a text are read: all, or the folded ones only (a text typed without any diacritics). */
export type FeatureView = 'all' | 'folded';

export type FeatureGroup = 'w' | 'b' | 'f' | 'fb' | 'c' | 'e';

/** The group of a feature string (its prefix). */
export function featureGroup(feature: string): FeatureGroup {
  return feature.slice(0, feature.indexOf(':')) as FeatureGroup;
}

/**
 * Per-feature weights for the linear model: the group weight times log((k + 1) / (k_f + 1)) + 1 where k is the
 * number of classes and k_f the number of classes whose training examples hold the feature. A word every intent
 * uses ("cho", "giúp", "không", an opener) weighs 1; one only a single intent uses weighs log((k + 1) / 2) + 1:
 * function words are weighted down by what the data shows, without a stop-word list.
 */
export function spreadWeights(vocabulary: string[], examples: { features: number[]; label: number }[], classes: number): Float32Array {
  const out = new Float32Array(vocabulary.length);
  const spread = classCounts(vocabulary.length, examples, classes);
  for (let f = 0; f < vocabulary.length; f++) {
    const group = groupWeight(vocabulary[f]!);
    out[f] = group * (Math.log((classes + 1) / (spread[f]! + 1)) + 1);
  }
  return out;
}

/** The weight of a feature's group (`GROUP_WEIGHTS`). */
export function groupWeight(feature: string): number {
  return GROUP_WEIGHTS[featureGroup(feature)] ?? 1;
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
  /** Its words stand only as the entity (a free-text value). */
  hide?: boolean;
}

/**
 * Feature strings of a text (duplicates removed). Words inside `masks` also
 * count as their entity: the bigrams around "<city>" are shared by every city,
 * so "bay tới Huế" and "bay tới Đà Lạt" look alike to the classifier.
 */
export function featureStrings(input: string | PreparedText, masks: EntityMask[] = [], known?: (feature: string) => boolean): string[] {
  const text = typeof input === 'string' ? prepare(input) : input;
  const out = new Set<string>();
  const maskAt = new Map<number, EntityMask>();
  for (const m of masks) maskAt.set(m.first, m);
  // At prediction (`known`): marked syllables whose marked spelling the model never saw have no folded form.
  const strict = known ? (t: Token) => t.text !== t.folded && !known(`w:${writtenKey(t)}`) : undefined;
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
    if (WORD_CHAR.test(t.text)) sequence.push({ text: writtenKey(t), folded: strict?.(t) ? UNFOLDED : shape(t.folded) });
  }
  const hidden = masks.length >= MASK_TABLE_FROM ? maskTables(masks, text.tokens.length).hidden : undefined;
  const words = text.tokens.filter((t, i) => WORD_CHAR.test(t.text) && !(hidden ? hidden[i] === 1 : masked(masks, i)));
  for (const w of words) out.add(`w:${writtenKey(w)}`);
  let prev = '<s>';
  for (const w of sequence) {
    out.add(`b:${prev} ${w.text}`);
    prev = w.text;
  }
  out.add(`b:${prev} </s>`);
  for (const w of words) if (!strict?.(w)) out.add(`f:${shape(w.folded)}`);
  prev = '<s>';
  for (const w of sequence) {
    out.add(`fb:${prev} ${w.folded}`);
    prev = w.folded;
  }
  out.add(`fb:${prev} </s>`);
  addGrams(out, strict ? words.filter((w) => !strict(w)) : words);
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

/** A syllable's key among the syllables as written: its shape, with the tone moved after it. */
function writtenKey(t: Token): string {
  const s = shape(t.text);
  return s !== '#num' ? toneKey(s) : s;
}

/** The folded character n-grams inside each word, by length (`CHAR_LENGTHS` order), each length word by word. */
function addGrams(out: Set<string>, words: Token[]): void {
  const pieces = words.map((w) => ` ${shape(w.folded)} `);
  for (const n of CHAR_LENGTHS) {
    for (const piece of pieces) {
      for (let i = 0; i + n <= piece.length; i++) {
        const gram = piece.slice(i, i + n);
        if (gram.trim()) out.add(`c:${gram}`);
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
 * character n-gram ids per length of `CHAR_LENGTHS`.
 */
interface Syllable extends SequenceWord {
  token: Token;
  /** The token's folded form the reading was made from. */
  folded0: string;
  /** Holds a letter or a digit. */
  word: boolean;
  wordId: number;
  foldedId: number;
  /** Marked, and its marked spelling unknown: read without its folded features. */
  strict: boolean;
  grams: number[][];
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
  /** Per feature id, the `stamp` of the last text it was taken for (duplicates removed without a set). */
  private readonly seen: Uint32Array;
  private stamp = 0;
  /** The ids of the text being read: `take` adds to the first `count` of the buffer. */
  private idBuffer: number[] = [];
  private count = 0;
  /** Each syllable's reading by its lower-case text (chat reuses a small vocabulary): bounded, cleared when full. */
  private readonly memo = new Map<string, Syllable>();
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
      } else if (group === 'c') {
        let node = this.grams;
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

  /** Ids of the known features of a text (see `featureStrings`). `view`: `folded` leaves out the syllables and bigrams as written (`w`, `b`), as a text typed without diacritics is read. */
  ids(text: PreparedText, masks: EntityMask[] = [], view: FeatureView = 'all'): number[] {
    // Gathered in a reused buffer (`count` of it in use; setting an array's length to 0 drops its storage), answered as a copy.
    this.count = 0;
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const tokens = text.tokens;
    // Each token's reading, and the words among them (those a free-text mask hides left out).
    const read = this.tokenBuffer;
    const words = this.wordBuffer;
    let wordCount = 0;
    const table = masks.length >= MASK_TABLE_FROM ? maskTables(masks, tokens.length) : undefined;
    for (let i = 0; i < tokens.length; i++) {
      const s = (read[i] = this.syllable(tokens[i]!));
      if (s.word && !(masks.length > 0 && (table ? table.hidden[i] === 1 : masked(masks, i)))) words[wordCount++] = s;
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
    if (view !== 'folded') {
      for (let k = 0; k < wordCount; k++) this.take(words[k]!.wordId);
      let next = this.bigramStart;
      for (let k = 0; k < sequenceCount; k++) {
        const s = sequence[k]!;
        this.take(next?.get(s.text));
        next = s.textNext;
      }
      this.take(next?.get('</s>'));
    }
    for (let k = 0; k < wordCount; k++) if (!words[k]!.strict) this.take(words[k]!.foldedId);
    let next = this.foldedBigramStart;
    for (let k = 0; k < sequenceCount; k++) {
      const s = sequence[k]!;
      this.take(next?.get(s.folded));
      next = s.foldedNext;
    }
    this.take(next?.get('</s>'));
    // Each syllable's n-grams are memoised with it, per length: taken length by length, word by word.
    for (let k = 0; k < CHAR_LENGTHS.length; k++) {
      for (let x = 0; x < wordCount; x++) {
        const w = words[x]!;
        if (!w.strict) for (const id of w.grams[k]!) this.take(id);
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
  private syllable(t: Token): Syllable {
    const hit = this.memo.get(t.text);
    if (hit !== undefined && hit.folded0 === t.folded) return hit;
    const s = this.readSyllable(t);
    if (hit === undefined && t.text.length <= SYLLABLE_LENGTH) {
      if (this.memo.size >= SYLLABLE_MEMO) this.memo.clear();
      this.memo.set(t.text, s);
    }
    return s;
  }

  private readSyllable(t: Token): Syllable {
    const written = writtenKey(t);
    const wordId = this.words.get(written) ?? -1;
    // A marked syllable whose marked spelling is not in the vocabulary has no folded features.
    const strict = t.text !== t.folded && wordId < 0;
    const foldedShape = shape(t.folded);
    const folded = strict ? UNFOLDED : foldedShape;
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
      grams: this.gramsOf(` ${foldedShape} `),
    };
  }

  /** The known n-grams of one piece, per length of `CHAR_LENGTHS` (in its order), each left to right. */
  private gramsOf(piece: string): number[][] {
    const found: number[][] = [];
    for (let n = 0; n <= LONGEST_GRAM; n++) found.push([]);
    this.walkGrams(piece, found);
    return CHAR_LENGTHS.map((n) => found[n]!);
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

  /** The known n-grams (up to `LONGEST_GRAM`) starting at each position of `piece`, pushed to `found[n]` left to right. */
  private walkGrams(piece: string, found: number[][]): void {
    for (let i = 0; i < piece.length; i++) {
      let node: GramNode | undefined = this.grams;
      for (let n = 1; n <= LONGEST_GRAM && i + n <= piece.length; n++) {
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
