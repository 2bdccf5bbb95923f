import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateDataset, INTENTS, paraphraseOverlap } from '../../../fixtures/nlu/dataset.js';

// The generated set of `npm run eval:nlu` measures something only if its held-out paraphrases can be learnt.
describe('NLU evaluation dataset', () => {
  test('paraphraseOverlap finds the distinctive words and slots a template shares with its intent, not the common ones', () => {
    assert.deepEqual(paraphraseOverlap('lock_card', 'em đánh rơi {card} rồi'), ['{card}']);
    assert.deepEqual(paraphraseOverlap('book_hotel', 'kiếm chỗ ngủ ở {city} giúp em'), [], '"ở" and {city} are in many intents');
    assert.ok(paraphraseOverlap('set_alarm', 'cài chuông reo lúc 8 giờ').includes('chuông'));
  });

  test('every development and final paraphrase shares a distinctive word or slot with training; the out-of-vocabulary ones share none', () => {
    for (const [intent, spec] of Object.entries(INTENTS)) {
      for (const t of [...spec.test, ...spec.final]) assert.ok(paraphraseOverlap(intent, t).length > 0, `${intent}: ${t}`);
      for (const t of spec.outOfVocabulary ?? []) assert.deepEqual(paraphraseOverlap(intent, t), [], `${intent}: ${t}`);
      for (const t of [...spec.test, ...spec.final]) assert.ok(!spec.train.includes(t), `${intent}: a paraphrase is not a training template`);
    }
  });

  test('the final set is drawn from other templates than the development one, and spans point at their values', () => {
    const dev = generateDataset({ perIntent: 5, testPerIntent: 3, seed: 11, intents: 4 });
    const final = generateDataset({ perIntent: 5, testPerIntent: 3, seed: 11, intents: 4, final: true });
    assert.equal(final.test.written.length, 4 * 3);
    const devTexts = new Set(dev.test.written.map((s) => s.text));
    assert.ok(final.test.written.every((s) => !devTexts.has(s.text)));
    // Of intents 1-4 only check_balance has an out-of-vocabulary paraphrase.
    assert.equal(dev.test.outOfVocabulary.length, 3);
    assert.ok(dev.test.outOfVocabulary.every((s) => s.intent === 'check_balance'));
    for (const s of [...final.test.written, ...final.test.outOfVocabulary, ...dev.test.noMarks]) {
      for (const e of s.entities) assert.equal(Array.from(s.text).slice(e.start, e.end).join(''), e.value);
    }
  });
});
