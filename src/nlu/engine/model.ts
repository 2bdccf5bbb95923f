import { KeywordDictionary, type KeywordEntry } from './dictionary.js';
import { FEATURE_SET, FeatureIndex, featureStrings, spreadWeights, Vocabulary, type EntityMask, type FeatureSetName, type FeatureView } from './features.js';
import { DEFAULT_LINEAR, scores, softmaxInPlace, trainLinear, type EpochReport, type LinearModel, type LinearOptions } from './linear.js';
import { classificationMetrics, spanMetrics, stratifiedSplit, type Span } from './metrics.js';
import { measureEntities } from './measures.js';
import { systemEntities, VIETNAM_OFFSET_MINUTES, type ReferenceTime, type SystemEntityMatch } from './system-entities.js';
import { PerceptronTagger, spansOf, type TaggedSentence, type TaggerData, type TaggerDecoder } from './tagger.js';
import { normalisedSpan, prepare, slicePoints, type PreparedText } from './text.js';

/**
 * The language-understanding model of one application: an intent classifier
 * and an entity extractor, trained from its samples, kept as one JSON
 * document (the versioned blob), and read back to predict.
 */

/** Entity types of the training-data API: 1 keyword and free text, 2 keyword, 3 free text. */
export type EntityKind = 1 | 2 | 3;

export interface TrainingExample {
  text: string;
  /** Intent label, or empty. */
  intent: string;
  /** Code-point offsets into `text` as stored, end exclusive. */
  entities: { entity: string; start: number; end: number }[];
}

export interface EntityDefinition {
  label: string;
  type: EntityKind;
  /** Listed values with their synonyms (tagged values of keyword entities are added to these). */
  keywords?: { value: string; synonyms: string[] }[];
}

export interface TrainOptions {
  seed: number;
  /** Part of each intent held out to measure the model; 0 skips measuring. */
  holdout: number;
  epochs?: number;
  taggerEpochs?: number;
  /** The tagger's word dropout (see tagger.ts); 0 turns it off. */
  taggerWordDropout?: number;
  /** The tagger's dropout of the syllables of tagged values (see tagger.ts). */
  taggerValueDropout?: number;
  taggerDecoder?: TaggerDecoder;
  /** Overrides of the intent classifier's options (regularisation, step), for comparing them (eval/nlu). */
  linear?: Partial<LinearOptions>;
  /** At most this many intent weights (features x intents; `MAX_INTENT_WEIGHTS` when not given): past it the rarest features go. */
  maxWeights?: number;
}

/**
 * The intent classifier's weights are dense (every feature has one per intent): a bot of 300 intents and 9,000
 * samples of varied words (bench/nlu-many-intents.ts) had 143,171 features, a 232 MB model document and 805 MB
 * resident while training.
 * Past this many weights (64 MB as Float32, about 85 MB in the document) the features held by the fewest samples
 * are left out, so a model stays loadable (a document past V8's largest string, about 512 MB, cannot be written at
 * all) and each model a process keeps for predictions stays bounded. A 30-intent bot of a few thousand samples has
 * under a million.
 */
export const MAX_INTENT_WEIGHTS = 16_000_000;

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  seed: 7,
  holdout: 0.2,
  taggerWordDropout: 0.3,
  taggerValueDropout: 0.7,
  taggerDecoder: 'viterbi',
};

export interface ModelMetrics {
  intent?: { accuracy: number; precision: number; recall: number; f1: number; test_size: number; train_size: number };
  entity?: { precision: number; recall: number; f1: number; test_spans: number; train_size: number };
}

export interface IntentModelData {
  labels: string[];
  /** Keywords whose matches (and system entities) stand as "<entity>" in the features. */
  keywords: KeywordEntry[];
  /** The feature set and classifier the weights are for: the engine has one of each (see `FEATURE_SET`). */
  featureSet: FeatureSetName;
  kind: 'softmax';
  vocabulary: string[];
  /** Float32 little-endian, base64. */
  weights: string;
  bias: number[];
  /** Each feature's value when present (group and spread weights), Float32 base64; absent for binary features. */
  featureWeights?: string;
  /** Free-text entities whose spans stood as "<entity>" in training; at prediction the entity tagger finds them. */
  freeText?: string[];
  /** Features the training met but left out, the rarest, to stay within `maxWeights`; absent when none. */
  featuresLeftOut?: number;
}

export interface EntityModelData {
  definitions: { label: string; type: EntityKind }[];
  keywords: KeywordEntry[];
  tagger: TaggerData | undefined;
}

export interface NluModelData {
  format: 'saola.nlu.model.v1';
  intent: IntentModelData | undefined;
  entity: EntityModelData | undefined;
  metrics: ModelMetrics;
}

export interface IntentScore {
  label: string;
  confidence: number;
}

export interface PredictedEntity {
  entity: string;
  /** Code points of the text as sent. */
  start: number;
  end: number;
  value: string;
  real_value: string | number;
  subentities: PredictedEntity[];
}

function encodeFloats(values: Float32Array): string {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

function decodeFloats(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

// Intents

/** A text typed without any diacritics (every syllable is its own folded form). */
export function unmarked(text: PreparedText): boolean {
  return text.tokens.every((t) => t.text === t.folded);
}

/**
 * The view a text is read through: a text typed without diacritics through its folded features only. Its
 * syllables "as written" are the folded ones, and where they meet the vocabulary it is by accident (the "ban" of
 * "bạn" is the "ban" of "ban công"); without them the folded features carry the whole (unit) weight of the
 * example, as the written ones do for a text with diacritics.
 */
export function viewOf(text: PreparedText): FeatureView {
  return unmarked(text) ? 'folded' : 'all';
}

/** The feature strings of a text that its view reads (what `FeatureIndex.ids` finds of them, through `viewOf`). */
export function viewedFeatures(text: PreparedText, features: string[]): string[] {
  return viewOf(text) === 'folded' ? features.filter((f) => !f.startsWith('w:') && !f.startsWith('b:')) : features;
}

const TRAINING_REFERENCE: ReferenceTime = { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES };

/**
 * Token runs the intent features see as entities: listed keywords first, then
 * free-text entities (the tagged spans in training, the tagger's at
 * prediction), then system entities; no two overlap.
 */
function entityMasks(text: PreparedText, dictionary: KeywordDictionary | undefined, system?: SystemEntityMatch[], freeText: EntityMask[] = []): EntityMask[] {
  const masks: EntityMask[] = [];
  const found = system ?? systemEntities(text, TRAINING_REFERENCE);
  if (!dictionary && freeText.length === 0 && found.length === 0) return masks;
  const tokens = text.tokens;
  if (takenBuffer.length < tokens.length) takenBuffer = new Uint8Array(Math.max(tokens.length, 2 * takenBuffer.length));
  const taken = takenBuffer;
  taken.fill(0, 0, tokens.length);
  if (dictionary) for (const m of dictionary.match(tokens)) takeMask(masks, taken, tokens.length, { entity: m.entity, first: m.first, last: m.last });
  for (const m of freeText) takeMask(masks, taken, tokens.length, m);
  // Spans do not depend on the reference time, only values do.
  for (const s of found) takeMask(masks, taken, tokens.length, { entity: s.entity, first: s.first, last: s.last });
  return masks;
}

/** Flags of the tokens `entityMasks` has given a mask (reused; predictions run one at a time in a thread). */
let takenBuffer = new Uint8Array(64);

/** Adds a mask unless one of its tokens is taken (`taken`: a flag per token, the first `count` in use). */
function takeMask(masks: EntityMask[], taken: Uint8Array, count: number, m: EntityMask): void {
  for (let i = m.first; i < m.last; i++) if (i >= 0 && i < count && taken[i]) return;
  for (let i = m.first; i < m.last; i++) if (i >= 0 && i < count) taken[i] = 1;
  masks.push(m);
}

export function intentFeatures(
  text: PreparedText,
  dictionary: KeywordDictionary | undefined,
  system?: SystemEntityMatch[],
  freeText?: EntityMask[],
  known?: (feature: string) => boolean,
): string[] {
  return featureStrings(text, entityMasks(text, dictionary, system, freeText), known);
}

/** The tokens a tagged span (code points of the text as stored) covers, as a mask. */
function spanMask(text: PreparedText, span: { entity: string; start: number; end: number }): EntityMask | undefined {
  const n = normalisedSpan(text, span.start, span.end);
  if (!n) return undefined;
  const inside = text.tokens.map((t, i) => (t.end > n.start && t.start < n.end ? i : -1)).filter((i) => i >= 0);
  return inside.length > 0 ? { entity: span.entity, first: inside[0]!, last: inside[inside.length - 1]! + 1, hide: true } : undefined;
}

/** `freeText`: labels of the free-text entities (types 1 and 3) whose tagged spans stand as "<entity>" in the features. */
function trainIntents(examples: TrainingExample[], options: TrainOptions, keywords: KeywordEntry[], freeText: Set<string>, onEpoch?: EpochReport): IntentModelData {
  const labels = [...new Set(examples.map((e) => e.intent))].sort();
  const labelIndex = new Map(labels.map((l, i) => [l, i]));
  const dictionary = keywords.length > 0 ? new KeywordDictionary(keywords) : undefined;
  let vocabulary = new Vocabulary();
  let data: { features: number[]; label: number }[] = [];
  for (const e of examples) {
    const text = prepare(e.text);
    const masks = e.entities
      .filter((s) => freeText.has(s.entity))
      .map((s) => spanMask(text, s))
      .filter((m): m is EntityMask => m !== undefined);
    const label = labelIndex.get(e.intent)!;
    data.push({ features: intentFeatures(text, dictionary, undefined, masks).map((f) => vocabulary.add(f)), label });
  }
  const limit = Math.max(1, Math.floor((options.maxWeights ?? MAX_INTENT_WEIGHTS) / Math.max(1, labels.length)));
  const met = vocabulary.size;
  if (met > limit) ({ vocabulary, data } = commonestFeatures(vocabulary, data, limit));
  const featureWeights = spreadWeights(vocabulary.entries(), data, labels.length);
  const model = trainLinear(
    data,
    labels.length,
    vocabulary.size,
    { ...DEFAULT_LINEAR, seed: options.seed, epochs: options.epochs ?? DEFAULT_LINEAR.epochs, ...options.linear },
    featureWeights,
    onEpoch,
  );
  return {
    labels,
    keywords,
    featureSet: FEATURE_SET,
    kind: 'softmax',
    vocabulary: vocabulary.entries(),
    weights: encodeFloats(model.weights),
    bias: Array.from(model.bias),
    featureWeights: encodeFloats(featureWeights),
    freeText: [...freeText].sort(),
    ...(met > vocabulary.size ? { featuresLeftOut: met - vocabulary.size } : {}),
  };
}

/**
 * The `limit` features held by the most examples (ties: the first met), in the order they were met, and the
 * examples' features renumbered (the others dropped).
 */
function commonestFeatures(vocabulary: Vocabulary, data: { features: number[]; label: number }[], limit: number) {
  const held = new Uint32Array(vocabulary.size);
  for (const e of data) for (const f of e.features) held[f]! += 1;
  const ranked = Array.from({ length: vocabulary.size }, (_, f) => f).sort((a, b) => held[b]! - held[a]! || a - b);
  const kept = ranked.slice(0, limit).sort((a, b) => a - b);
  const renumber = new Int32Array(vocabulary.size).fill(-1);
  kept.forEach((f, i) => (renumber[f] = i));
  const entries = vocabulary.entries();
  return {
    vocabulary: new Vocabulary(kept.map((f) => entries[f]!)),
    data: data.map((e) => ({ label: e.label, features: e.features.map((f) => renumber[f]!).filter((f) => f >= 0) })),
  };
}

// Entities

export function keywordEntries(examples: TrainingExample[], definitions: EntityDefinition[]): KeywordEntry[] {
  const kinds = new Map(definitions.map((d) => [d.label, d.type]));
  const entries: KeywordEntry[] = [];
  for (const d of definitions) for (const k of d.keywords ?? []) entries.push({ entity: d.label, value: k.value, synonyms: k.synonyms });
  // Tagged words of keyword entities are values too, each its own canonical form unless listed.
  const listed = new KeywordDictionary(entries);
  const seen = new Set<string>();
  for (const e of examples) {
    for (const tag of e.entities) {
      const kind = kinds.get(tag.entity);
      if (kind !== 1 && kind !== 2) continue;
      const value = slicePoints(e.text, tag.start, tag.end).normalize('NFC').trim();
      if (!value || listed.canonical(tag.entity, value) !== undefined) continue;
      const key = `${tag.entity}\u0000${value.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({ entity: tag.entity, value, synonyms: [] });
    }
  }
  return entries;
}

interface EntityRuntime {
  definitions: Map<string, EntityKind>;
  dictionary: KeywordDictionary;
  tagger: PerceptronTagger | undefined;
}

export function sentenceOf(text: PreparedText, dictionary: KeywordDictionary, system: SystemEntityMatch[]): TaggedSentence {
  const hints: string[][] = text.tokens.map(() => []);
  for (const m of dictionary.match(text.tokens)) {
    for (let i = m.first; i < m.last; i++) hints[i]!.push(`d:${m.entity}:${i === m.first ? 'B' : 'I'}`);
  }
  for (const s of system) {
    for (let i = s.first; i < s.last; i++) hints[i]!.push(`s:${s.entity}:${i === s.first ? 'B' : 'I'}`);
  }
  // Without astral characters code points are UTF-16 units: each token's surface is a slice of the joined text.
  const joined = text.chars.join('');
  const units = joined.length === text.chars.length;
  return { tokens: text.tokens, surface: text.tokens.map((t) => (units ? joined.slice(t.start, t.end) : text.chars.slice(t.start, t.end).join(''))), hints };
}

/** Gold BIO tags of an example from its tagged spans (a span covers the tokens it overlaps). */
function goldTags(text: PreparedText, spans: Span[], freeText: Set<string>): string[] {
  const tags = text.tokens.map(() => 'O');
  for (const s of [...spans].sort((a, b) => a.end - a.start - (b.end - b.start)).reverse()) {
    if (!freeText.has(s.entity)) continue;
    const inside = text.tokens.map((t, i) => (t.end > s.start && t.start < s.end ? i : -1)).filter((i) => i >= 0);
    if (inside.length === 0 || inside.some((i) => tags[i] !== 'O')) continue;
    inside.forEach((i, n) => (tags[i] = `${n === 0 ? 'B' : 'I'}-${s.entity}`));
  }
  return tags;
}

function trainEntities(examples: TrainingExample[], definitions: EntityDefinition[], options: TrainOptions, onEpoch?: EpochReport): EntityModelData {
  const keywords = keywordEntries(examples, definitions);
  const dictionary = new KeywordDictionary(keywords);
  const freeText = new Set(definitions.filter((d) => d.type === 1 || d.type === 3).map((d) => d.label));
  const sentences: TaggedSentence[] = [];
  for (const e of examples) {
    const text = prepare(e.text);
    const spans = e.entities
      .map((s) => ({ entity: s.entity, ...normalisedSpan(text, s.start, s.end) }))
      .filter((s): s is Span => s.start !== undefined && s.end !== undefined);
    const sentence = sentenceOf(text, dictionary, systemEntities(text, TRAINING_REFERENCE));
    sentence.tags = goldTags(text, spans, freeText);
    sentences.push(sentence);
  }
  const anyFreeText = sentences.some((s) => s.tags!.some((t) => t !== 'O'));
  const tagger = anyFreeText
    ? PerceptronTagger.train(sentences, {
        epochs: options.taggerEpochs ?? 10,
        seed: options.seed,
        wordDropout: options.taggerWordDropout ?? 0,
        valueDropout: options.taggerValueDropout,
        decoder: options.taggerDecoder ?? 'greedy',
        onEpoch,
      }).toData()
    : undefined;
  if (!tagger) onEpoch?.(1, 1);
  return { definitions: definitions.map((d) => ({ label: d.label, type: d.type })), keywords, tagger };
}

/** A model loaded for prediction: the JSON decoded once, lookups ready. */
export class NluModel {
  private readonly features: FeatureIndex | undefined;
  /** Buffers of one prediction's scores and feature values (predictions run one at a time). */
  private readonly scoreBuffer: Float64Array<ArrayBuffer>;
  private readonly valueBuffer: number[] = [];
  /** The indices of the best intents of one prediction (`intents`). */
  private readonly topBuffer: number[] = [];
  private readonly intentDictionary: KeywordDictionary | undefined;
  private readonly linear: LinearModel | undefined;
  private readonly entities: EntityRuntime | undefined;
  private lastTagged: { text: PreparedText; spans: { entity: string; first: number; last: number }[] } | undefined;

  constructor(readonly data: NluModelData) {
    if (data.intent) {
      if (data.intent.featureSet !== FEATURE_SET || data.intent.kind !== 'softmax') {
        throw new Error(
          `The model's intents were trained with features "${data.intent.featureSet}" and a "${data.intent.kind}" classifier, which this version does not read: train the model again`,
        );
      }
      this.features = new FeatureIndex(data.intent.vocabulary);
      this.intentDictionary = data.intent.keywords.length > 0 ? new KeywordDictionary(data.intent.keywords) : undefined;
      this.linear = {
        classes: data.intent.labels.length,
        features: data.intent.vocabulary.length,
        weights: decodeFloats(data.intent.weights),
        bias: Float32Array.from(data.intent.bias),
        ...(data.intent.featureWeights ? { featureWeights: decodeFloats(data.intent.featureWeights) } : {}),
      };
    }
    this.scoreBuffer = new Float64Array(this.linear?.classes ?? 0);
    if (data.entity) {
      this.entities = {
        definitions: new Map(data.entity.definitions.map((d) => [d.label, d.type])),
        dictionary: new KeywordDictionary(data.entity.keywords),
        tagger: data.entity.tagger ? PerceptronTagger.fromData(data.entity.tagger) : undefined,
      };
    }
  }

  get hasIntents(): boolean {
    return this.linear !== undefined;
  }

  get hasEntities(): boolean {
    return this.entities !== undefined;
  }

  /** The tagger's spans of a text, kept for the last text so a prediction tags it once. */
  private taggerSpans(text: PreparedText, system: SystemEntityMatch[]): { entity: string; first: number; last: number }[] {
    const tagger = this.entities?.tagger;
    if (!tagger) return [];
    if (this.lastTagged?.text === text) return this.lastTagged.spans;
    const spans = spansOf(tagger.tag(sentenceOf(text, this.entities!.dictionary, system)));
    this.lastTagged = { text, spans };
    return spans;
  }

  /** The tagger's spans of the free-text entities the intent features mask (their words hidden with `maskWords`). */
  freeTextMasks(text: PreparedText, system: SystemEntityMatch[]): EntityMask[] {
    const wanted = this.data.intent?.freeText;
    if (!wanted || wanted.length === 0) return [];
    const labels = new Set(wanted);
    return this.taggerSpans(text, system)
      .filter((s) => labels.has(s.entity))
      .map((s) => ({ ...s, hide: true }));
  }

  /** Intents ranked by confidence (0-1), at most `limit`. */
  intents(input: string | PreparedText, limit = 5, systemFound?: SystemEntityMatch[]): IntentScore[] {
    const probs = this.probabilities(input, systemFound);
    if (!probs) return [];
    if (!Number.isInteger(limit) || limit < 0 || limit > probs.length) {
      return this.ranked(probs)
        .slice(0, limit)
        .map((r) => ({ label: r.label, confidence: Math.round(r.confidence * 1e4) / 1e4 }));
    }
    // The first `limit` of `rankedIntents` without an object per intent: by confidence, ties in label order (as its stable sort leaves them).
    // Insertion into the first `size` places of a buffer of `limit` + 1 (an array's length set to 0 would drop its storage).
    const top = this.topBuffer;
    let size = 0;
    for (let i = 0; i < probs.length; i++) {
      const v = probs[i]!;
      if (size === limit && (limit === 0 || !(v > probs[top[limit - 1]!]!))) continue;
      let at = size;
      while (at > 0 && probs[top[at - 1]!]! < v) {
        top[at] = top[at - 1]!;
        at--;
      }
      top[at] = i;
      if (size < limit) size++;
    }
    const labels = this.data.intent!.labels;
    const out: IntentScore[] = new Array<IntentScore>(size);
    for (let k = 0; k < size; k++) out[k] = { label: labels[top[k]!]!, confidence: Math.round(probs[top[k]!]! * 1e4) / 1e4 };
    return out;
  }

  /** Every intent ranked by its confidence as computed, unrounded (what `intents` answers is cut and rounded from this). */
  rankedIntents(input: string | PreparedText, systemFound?: SystemEntityMatch[]): IntentScore[] {
    const probs = this.probabilities(input, systemFound);
    return probs ? this.ranked(probs) : [];
  }

  private ranked(probs: Float64Array): IntentScore[] {
    return Array.from(probs, (confidence, i) => ({ label: this.data.intent!.labels[i]!, confidence })).sort((a, b) => b.confidence - a.confidence);
  }

  /** Each intent's confidence in label order (the model's buffer, valid until the next prediction), or undefined when no feature is known. */
  private probabilities(input: string | PreparedText, systemFound?: SystemEntityMatch[]): Float64Array | undefined {
    if (!this.linear || !this.features || !this.data.intent) return undefined;
    const text = typeof input === 'string' ? prepare(input) : input;
    const system = systemFound ?? systemEntities(text, TRAINING_REFERENCE);
    const freeText = this.freeTextMasks(text, system);
    // The ids `Vocabulary.lookup(intentFeatures(...))` gives (through the view `viewOf` picks), without the strings.
    const features = this.features.ids(text, entityMasks(text, this.intentDictionary, system, freeText), viewOf(text));
    if (features.length === 0) return undefined;
    return softmaxInPlace(scores(this.linear, features, this.scoreBuffer, this.valueBuffer));
  }

  /** Both halves of a prediction, the text read once. */
  predict(content: string, ref: ReferenceTime, parts: { intent: boolean; entity: boolean }): { intents?: IntentScore[]; entities?: PredictedEntity[] } {
    const text = prepare(content);
    const system = systemEntities(text, ref);
    const out: { intents?: IntentScore[]; entities?: PredictedEntity[] } = {};
    if (parts.intent) out.intents = this.intents(text, 5, system);
    if (parts.entity) out.entities = this.extract(content, ref, text, system);
    return out;
  }

  /** Entities of a text: the application's own (dictionary and tagger) and the system ones, offsets into `original`. */
  extract(original: string, ref: ReferenceTime, prepared?: PreparedText, systemFound?: SystemEntityMatch[]): PredictedEntity[] {
    const text = prepared ?? prepare(original);
    const system = systemFound ?? systemEntities(text, ref);
    const own: { entity: string; first: number; last: number; value?: string; fromDictionary: boolean }[] = [];
    if (this.entities) {
      const { dictionary, tagger, definitions } = this.entities;
      for (const m of dictionary.match(text.tokens)) {
        if (definitions.get(m.entity) !== 3) own.push({ ...m, fromDictionary: true });
      }
      if (tagger) {
        for (const s of this.taggerSpans(text, system)) if (definitions.get(s.entity) !== 2) own.push({ ...s, fromDictionary: false });
      }
    }
    // Longest first, the dictionary first among equals; no two of the application's entities overlap.
    own.sort((a, b) => b.last - b.first - (a.last - a.first) || Number(b.fromDictionary) - Number(a.fromDictionary) || a.first - b.first);
    const taken: boolean[] = text.tokens.map(() => false);
    const kept: typeof own = [];
    for (const c of own) {
      let free = true;
      for (let i = c.first; i < c.last; i++) if (taken[i]) free = false;
      if (!free) continue;
      for (let i = c.first; i < c.last; i++) taken[i] = true;
      kept.push(c);
    }
    let points: string[] | undefined;
    // Without astral characters the original's code points are its UTF-16 units (it has as many as the last cluster's end).
    const units = original.length === (text.originalEnd[text.originalEnd.length - 1] ?? 0);
    /** An entity at a span of the normalised text, its offsets and value in the original. */
    const entityAt = (entity: string, start: number, end: number, real: string | number, subentities: PredictedEntity[]): PredictedEntity => {
      const from = text.originalStart[start] ?? 0;
      const to = text.originalEnd[end - 1] ?? 0;
      // The original split into code points once per text (`slicePoints` for every entity).
      const value = units ? original.slice(from, to) : (points ??= Array.from(original)).slice(from, to).join('');
      return { entity, start: from, end: to, value, real_value: real, subentities };
    };
    const systemOut: PredictedEntity[] = new Array<PredictedEntity>(system.length);
    for (let k = 0; k < system.length; k++) systemOut[k] = entityAt(system[k]!.entity, system[k]!.start, system[k]!.end, system[k]!.realValue, []);
    // Money, durations and temperatures: answered beside their number, which is also their subentity.
    const measures = text.tokens.length > 1 ? measureEntities(text, system) : [];
    /** Spans of the normalised text of `systemOut`, in its order. */
    const systemSpans: { start: number; end: number }[] = [...system];
    for (const m of measures) {
      const number = m.number ? [entityAt(m.number.entity, m.number.start, m.number.end, m.number.realValue, [])] : [];
      systemOut.push(entityAt(m.entity, m.start, m.end, m.realValue, number));
      systemSpans.push(m);
    }
    if (kept.length === 0) return systemOut.sort((a, b) => a.start - b.start || b.end - a.end);
    const ownOut: PredictedEntity[] = kept.map((c) => {
      const start = text.tokens[c.first]!.start;
      const end = text.tokens[c.last - 1]!.end;
      const written = text.chars.slice(start, end).join('');
      const real = c.value ?? this.entities!.dictionary.canonical(c.entity, written) ?? written;
      const inside = systemOut.filter((_, k) => systemSpans[k]!.start >= start && systemSpans[k]!.end <= end);
      return entityAt(c.entity, start, end, real, inside);
    });
    return [...ownOut, ...systemOut].sort((a, b) => a.start - b.start || b.end - a.end);
  }
}

export interface TrainRequest {
  examples: TrainingExample[];
  entities: EntityDefinition[];
  /** Which halves to train. */
  parts: { intent: boolean; entity: boolean };
  options?: Partial<TrainOptions>;
}

/** Where a training is: `fraction` of the whole (0-1, by the passes done, weighted by the samples each step learns from). */
export interface TrainProgress {
  fraction: number;
  /** `measuring`: the models of the held-out split; `training`: the final ones, on every sample. */
  stage: 'measuring' | 'training';
  part: 'intents' | 'entities';
  pass: number;
  passes: number;
}

/**
 * The steps of a training with their weights (samples learnt from; the two halves cost about the same per
 * sample: 16.8 and 19.0 s CPU on 25,835 generated samples), as `EpochReport`s that tell `report` the whole's fraction.
 */
function progressPlan(steps: { stage: TrainProgress['stage']; part: TrainProgress['part']; weight: number }[], report: ((p: TrainProgress) => void) | undefined) {
  const total = steps.reduce((sum, s) => sum + s.weight, 0) || 1;
  let before = 0;
  return steps.map((step) => {
    const from = before;
    before += step.weight;
    const onEpoch: EpochReport | undefined = report
      ? (pass, passes) => report({ fraction: Math.min(1, (from + (step.weight * pass) / Math.max(1, passes)) / total), stage: step.stage, part: step.part, pass, passes })
      : undefined;
    return onEpoch;
  });
}

/**
 * Measures on a held-out split (stratified by intent, seeded), then trains
 * the final model on everything. Answers the model document. `report`, if
 * given, is told the progress after each pass of each step.
 */
export function trainModel(request: TrainRequest, report?: (p: TrainProgress) => void): NluModelData {
  const options = { ...DEFAULT_TRAIN_OPTIONS, ...request.options };
  const metrics: ModelMetrics = {};
  const withIntent = request.examples.filter((e) => e.intent);
  let intent: IntentModelData | undefined;
  let entity: EntityModelData | undefined;
  const { train, test } =
    options.holdout > 0 ? stratifiedSplit(request.examples, (e) => e.intent || '\u0000none', options.holdout, options.seed) : { train: request.examples, test: [] };
  const keywords = keywordEntries(request.examples, request.entities);
  const entityLabels = new Set(request.entities.map((d) => d.label));
  const freeText = new Set(request.entities.filter((d) => d.type === 1 || d.type === 3).map((d) => d.label));
  const tagged = (list: TrainingExample[]) => list.map((e) => ({ ...e, entities: e.entities.filter((s) => entityLabels.has(s.entity)) }));
  const wantIntents = request.parts.intent && new Set(withIntent.map((e) => e.intent)).size >= 2;
  const wantEntities = request.parts.entity && request.entities.length > 0;
  const testIntents = wantIntents ? test.filter((e) => e.intent) : [];
  const testTagged = wantEntities ? tagged(test).filter((e) => e.entities.length > 0) : [];
  // The entity half trained on the split serves both measurements: the intent features read its tagger's spans.
  const measureEntities = request.entities.length > 0 && (testTagged.length > 0 || (testIntents.length > 0 && freeText.size > 0));
  const trainIntentsSet = train.filter((e) => e.intent);
  const [splitEntityPasses, splitIntentPasses, intentPasses, entityPasses] = progressPlan(
    [
      { stage: 'measuring', part: 'entities', weight: measureEntities ? train.length : 0 },
      { stage: 'measuring', part: 'intents', weight: wantIntents && testIntents.length > 0 ? trainIntentsSet.length : 0 },
      { stage: 'training', part: 'intents', weight: wantIntents ? withIntent.length : 0 },
      { stage: 'training', part: 'entities', weight: wantEntities ? request.examples.length : 0 },
    ],
    report,
  );
  const splitEntity = measureEntities ? trainEntities(tagged(train), request.entities, options, splitEntityPasses) : undefined;
  if (wantIntents) {
    if (testIntents.length > 0) {
      const measured = new NluModel({
        format: 'saola.nlu.model.v1',
        intent: trainIntents(trainIntentsSet, options, keywords, freeText, splitIntentPasses),
        entity: splitEntity,
        metrics: {},
      });
      const guessed = testIntents.map((e) => measured.intents(e.text, 1)[0]?.label);
      const m = classificationMetrics(
        testIntents.map((e) => e.intent),
        guessed,
      );
      metrics.intent = { accuracy: m.accuracy, precision: m.precision, recall: m.recall, f1: m.f1, test_size: m.support, train_size: trainIntentsSet.length };
    }
    intent = trainIntents(withIntent, options, keywords, freeText, intentPasses);
  }
  if (wantEntities) {
    if (testTagged.length > 0 && splitEntity) {
      const measured = new NluModel({ format: 'saola.nlu.model.v1', intent: undefined, entity: splitEntity, metrics: {} });
      const ref: ReferenceTime = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };
      const predicted = testTagged.map((e) => measured.extract(e.text, ref).filter((p) => entityLabels.has(p.entity)));
      const m = spanMetrics(
        testTagged.map((e) => e.entities),
        predicted,
      );
      metrics.entity = { precision: m.precision, recall: m.recall, f1: m.f1, test_spans: m.support, train_size: train.length };
    }
    entity = trainEntities(tagged(request.examples), request.entities, options, entityPasses);
  }
  return { format: 'saola.nlu.model.v1', intent, entity, metrics };
}
