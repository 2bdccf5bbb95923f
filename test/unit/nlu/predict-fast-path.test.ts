import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateDataset, type EntitySpec } from '../../../fixtures/nlu/dataset.js';
import { FeatureIndex, featureStrings, Vocabulary, type EntityMask } from '../../../src/nlu/engine/features.js';
import { scores, softmaxInPlace, type LinearModel } from '../../../src/nlu/engine/linear.js';
import { intentFeatures, NluModel, sentenceOf, trainModel, viewedFeatures, type EntityDefinition, type NluModelData } from '../../../src/nlu/engine/model.js';
import { KeywordDictionary } from '../../../src/nlu/engine/dictionary.js';
import { seededRandom } from '../../../src/nlu/engine/random.js';
import { systemEntities, VIETNAM_OFFSET_MINUTES } from '../../../src/nlu/engine/system-entities.js';
import { PerceptronTagger } from '../../../src/nlu/engine/tagger.js';
import { prepare } from '../../../src/nlu/engine/text.js';

// Prediction reads features as ids straight from the compiled vocabulary (`FeatureIndex`); these tests hold it to the
// straightforward path it replaced: feature strings, looked up in the vocabulary, scored.

function definitionsOf(entities: Record<string, EntitySpec>): EntityDefinition[] {
  return Object.entries(entities).map(([label, spec]) => ({
    label,
    type: spec.type,
    keywords: spec.keywords ? Object.entries(spec.keywords).map(([value, synonyms]) => ({ value, synonyms })) : undefined,
  }));
}

const data = generateDataset({ perIntent: 12, testPerIntent: 6, seed: 4242, intents: 12 });
const definitions = definitionsOf(data.entities);
const sentences = [...data.test.written, ...data.test.noMarks, ...data.test.noisy, ...data.test.outOfVocabulary, ...data.train.slice(0, 60)].map((s) => s.text);
// Texts at the edges: empty, punctuation only, digits with units, astral characters, NFD input, upper case, repeats,
// and a long text with dozens of numbers, dates and times (masks read from per-token tables past a few).
const edges = [
  '',
  '   ',
  '?!',
  '500k 2tr5 15/8 9h30',
  'chuyển 😀 tiền 𝒳 nhé',
  'chuyển tiền'.normalize('NFD'),
  'CHUYỂN TIỀN CHO MẸ',
  'cho cho cho cho',
  'a',
  'chuyển 500k cho em Quân lúc 9 giờ sáng mai, đặt vé đi Đà Nẵng ngày 15/8 hai người '.repeat(12),
];

function decode(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** The intents as the engine used to compute them: strings, vocabulary lookup, scores, softmax, ranked. */
/** The string path: feature strings (with the tagger's free-text spans the model masks), the view, the vocabulary's lookup. */
function referenceIntents(model: NluModelData, text: string) {
  const intent = model.intent!;
  const prepared = prepare(text);
  const dictionary = intent.keywords.length > 0 ? new KeywordDictionary(intent.keywords) : undefined;
  const freeText = new NluModel(model).freeTextMasks(prepared, systemEntities(prepared, { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES }));
  const vocabulary = new Vocabulary(intent.vocabulary);
  // `known`: what a model with `strictMarks` asks of its vocabulary (marked syllables never seen lose their folded features).
  const strings = intentFeatures(prepared, dictionary, undefined, freeText, (f) => vocabulary.index.has(f));
  const ids = vocabulary.lookup(viewedFeatures(prepared, strings));
  if (ids.length === 0) return { ids, ranked: [] };
  const linear: LinearModel = {
    classes: intent.labels.length,
    features: intent.vocabulary.length,
    weights: decode(intent.weights),
    bias: Float32Array.from(intent.bias),
    ...(intent.featureWeights ? { featureWeights: decode(intent.featureWeights) } : {}),
  };
  const probs = softmaxInPlace(scores(linear, ids));
  const ranked = Array.from(probs, (p, i) => ({ label: intent.labels[i]!, p })).sort((a, b) => b.p - a.p);
  return { ids, ranked };
}

describe('NLU prediction fast path', () => {
  const trained = trainModel({
    examples: data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities })),
    entities: definitions,
    parts: { intent: true, entity: true },
    options: { holdout: 0 },
  });
  const model = new NluModel(trained);

  test('the compiled vocabulary gives the ids of the feature strings, same order, duplicates removed', () => {
    const random = seededRandom(99);
    {
      // A vocabulary from half the sentences, so the other half meets unseen features.
      const vocabulary = new Vocabulary();
      for (const text of sentences.filter((_, i) => i % 2 === 0)) for (const f of featureStrings(text)) vocabulary.add(f);
      const index = new FeatureIndex(vocabulary.entries());
      let compared = 0;
      for (const text of [...sentences, ...edges]) {
        const prepared = prepare(text);
        // Masks: none, and a random run standing as an entity, its words kept or hidden (a free-text value).
        const masks: EntityMask[][] = [[]];
        if (prepared.tokens.length > 1) {
          const first = Math.floor(random() * (prepared.tokens.length - 1));
          const last = first + 1 + Math.floor(random() * 2);
          masks.push([{ entity: 'city', first, last }], [{ entity: 'city', first, last, hide: true }]);
        }
        for (const m of masks) {
          const strings = featureStrings(prepared, m, (f) => vocabulary.index.has(f));
          assert.deepEqual(index.ids(prepared, m), vocabulary.lookup(strings), text);
          assert.deepEqual(index.ids(prepared, m, 'folded'), vocabulary.lookup(viewedFeatures(prepare('dat ve'), strings)), `folded only: ${text}`);
          compared++;
        }
      }
      assert.ok(compared > sentences.length);
    }
  });

  test('intents and confidences equal the straightforward path on generated sentences (written, no diacritics, slang and typos)', () => {
    assert.equal(trained.intent!.featureSet, 'weightedWithinMaskedStrictGrams');
    for (const [data, loaded] of [[trained, model]] as const) {
      let withIntents = 0;
      for (const text of [...sentences, ...edges]) {
        const reference = referenceIntents(data, text);
        const fast = loaded.intents(text, 5);
        const expected = reference.ranked.slice(0, 5);
        assert.equal(fast.length, expected.length, text);
        fast.forEach((r, i) => {
          assert.equal(r.label, expected[i]!.label, text);
          assert.ok(Math.abs(r.confidence - Math.round(expected[i]!.p * 1e4) / 1e4) <= 1e-9, text);
        });
        if (fast.length > 0) withIntents++;
      }
      assert.ok(withIntents >= sentences.length, 'every generated sentence meets the vocabulary');
    }
  });

  test('a model that masks free-text entities reads the same ids through the compiled vocabulary', () => {
    const masked = trainModel({
      examples: data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities })),
      entities: definitions,
      parts: { intent: true, entity: true },
      options: { holdout: 0 },
    });
    const intent = masked.intent!;
    const index = new FeatureIndex(intent.vocabulary);
    const vocabulary = new Vocabulary(intent.vocabulary);
    for (const s of data.test.written) {
      const prepared = prepare(s.text);
      // The gold spans stand for the tagger's: the masks a prediction may be given.
      const masks = s.entities
        .map((e): EntityMask | undefined => {
          const inside = prepared.tokens.map((t, i) => (t.end > e.start && t.start < e.end ? i : -1)).filter((i) => i >= 0);
          return inside.length > 0 ? { entity: e.entity, first: inside[0]!, last: inside[inside.length - 1]! + 1, hide: true } : undefined;
        })
        .filter((m): m is EntityMask => m !== undefined)
        .slice(0, 1);
      const strings = featureStrings(prepared, masks, (f) => vocabulary.index.has(f));
      assert.deepEqual(index.ids(prepared, masks), vocabulary.lookup(strings), s.text);
    }
    // And the whole prediction runs (the tagger's masks, not the gold ones).
    assert.ok(new NluModel(masked).intents(data.test.written[0]!.text).length > 0);
  });

  test('the tagger reading its weights by syllable id tags as the feature strings do', () => {
    const data = trained.entity!.tagger!;
    assert.equal(data.decoder, 'viterbi');
    const tagger = PerceptronTagger.fromData(data);
    const dictionary = new KeywordDictionary(trained.entity!.keywords);
    let entityTags = 0;
    for (const text of [...sentences, ...edges]) {
      const prepared = prepare(text);
      const sentence = sentenceOf(prepared, dictionary, systemEntities(prepared, { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES }));
      const tags = tagger.tag(sentence);
      assert.deepEqual(tags, tagger.tag(sentence, 'strings'), text);
      entityTags += tags.filter((t) => t !== 'O').length;
    }
    // The sentences hold free-text entities: the comparison covers entity tags, not only O.
    assert.ok(entityTags > 50, `${entityTags} entity tags`);
  });

  test("the tagger's hints: every token inside a system entity has its own, in one pass over a long text", () => {
    const dictionary = new KeywordDictionary(trained.entity!.keywords);
    for (const text of [...sentences.slice(0, 60), ...edges]) {
      const prepared = prepare(text);
      const system = systemEntities(prepared, { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES });
      const hints = sentenceOf(prepared, dictionary, system).hints.map((h) => h.filter((x) => x.startsWith('s:')));
      // Each token against each entity, as the hints were found before.
      const expected = prepared.tokens.map((t) =>
        system.filter((m) => t.start >= m.start && t.end <= m.end).map((m) => `s:${m.entity}:${t.start === m.start ? 'B' : 'I'}`),
      );
      assert.deepEqual(hints, expected, text);
    }
    const long = prepare(edges.at(-1)!);
    assert.ok(systemEntities(long, { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES }).length >= 36);
  });

  test('intents are the first of rankedIntents, rounded, for every limit (picked without ranking them all)', () => {
    const model = new NluModel(trained);
    const count = trained.intent!.labels.length;
    for (const text of [...sentences.slice(0, 60), ...edges]) {
      const ranked = model.rankedIntents(text);
      for (const limit of [0, 1, 2, 5, count - 1, count, count + 3, -1, 2.5, Infinity]) {
        const expected = ranked.slice(0, limit).map((r) => ({ label: r.label, confidence: Math.round(r.confidence * 1e4) / 1e4 }));
        assert.deepEqual(model.intents(text, limit), expected, `${limit}: ${text}`);
      }
    }
  });

  test('the tokenizer reads tokens unit by unit as its regular expression does', () => {
    const pattern = /\d+(?:[.,/:-]\d+)*(?:\p{L}+\d*)?|[\p{L}\p{N}]+|[^\s]/gu;
    // Digits, separators, letters with and without marks, other scripts' digits, spaces of every kind, marks, symbols.
    const alphabet = [
      ...'0123456789.,/:-_ abcdzkhtrđăâêôơưáàảãạếờ',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u3000',
      '\ufeff',
      '\u0301',
      '\u0663',
      '\u00b2',
      'Ⅻ',
      '%',
      '😀',
      '?',
      'İ',
      'Σ',
    ];
    const random = seededRandom(99);
    const texts = [...sentences, ...edges];
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const length = Math.floor(random() * 24);
      for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)]!;
      texts.push(text);
    }
    for (const text of texts) {
      const prepared = prepare(text);
      const lower = prepared.lower.join('');
      if (lower.length !== prepared.lower.length) continue; // astral: read by the expression itself
      const expected = [...lower.matchAll(pattern)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
      assert.deepEqual(
        prepared.tokens.map((t) => ({ text: t.text, start: t.start, end: t.end })),
        expected,
        JSON.stringify(text),
      );
    }
  });
});
