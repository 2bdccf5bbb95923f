import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeywordDictionary } from '../../../src/nlu/engine/dictionary.js';
import { featureStrings, spreadWeights, toneKey } from '../../../src/nlu/engine/features.js';
import { DEFAULT_LINEAR, featureValues, scores, trainLinear } from '../../../src/nlu/engine/linear.js';
import { classificationMetrics, spanMetrics, stratifiedSplit } from '../../../src/nlu/engine/metrics.js';
import { NluModel, trainModel, unmarked, viewOf, type TrainingExample, type TrainProgress } from '../../../src/nlu/engine/model.js';
import { parseNumeral } from '../../../src/nlu/engine/numbers.js';
import { systemEntities, type ReferenceTime } from '../../../src/nlu/engine/system-entities.js';
import { PerceptronTagger, spansOf } from '../../../src/nlu/engine/tagger.js';
import { foldText, prepare, slicePoints } from '../../../src/nlu/engine/text.js';
import { TRAVEL_BOT, TRAVEL_CITIES } from '../../../fixtures/nlu/travel-bot.js';

// Wednesday 25 November 2026, 20:00 in Vietnam.
const REF: ReferenceTime = { now: new Date('2026-11-25T13:00:00Z'), offsetMinutes: 420 };

function sys(text: string) {
  return systemEntities(prepare(text), REF).map((m) => ({ entity: m.entity, text: slicePoints(text, m.start, m.end), value: m.realValue }));
}

describe('text: folding and offsets', () => {
  test('accent folding maps every Vietnamese letter to its base, đ to d', () => {
    assert.equal(foldText('Đặt vé MÁY BAY đi Huế'), 'dat ve may bay di hue');
    assert.equal(foldText('ươ ỳ ẫ ặ ổ'), 'uo y a a o');
  });

  test('NFD input: each decomposed letter becomes one code point, offsets point back into the input', () => {
    const nfc = 'đi Đà Nẵng';
    const nfd = nfc.normalize('NFD');
    assert.notEqual(Array.from(nfd).length, Array.from(nfc).length);
    const p = prepare(nfd);
    assert.equal(p.chars.join(''), nfc);
    const token = p.tokens.find((t) => t.folded === 'nang')!;
    const start = p.originalStart[token.start]!;
    const end = p.originalEnd[token.end - 1]!;
    assert.equal(slicePoints(nfd, start, end), 'Nẵng'.normalize('NFD'));
  });

  test('tokens keep numbers with their separators and units together', () => {
    assert.deepEqual(
      prepare('Hẹn 9h30 ngày 15/8, giá 1.000.000đ (500k)').tokens.map((t) => t.text),
      ['hẹn', '9h30', 'ngày', '15/8', ',', 'giá', '1.000.000đ', '(', '500k', ')'],
    );
  });
});

describe('system entities', () => {
  test('numbers in words and digits', () => {
    assert.deepEqual(parseNumeral('1.000.000'), 1_000_000);
    assert.deepEqual(parseNumeral('1,5'), 1.5);
    assert.deepEqual(parseNumeral('500k'), 500_000);
    assert.deepEqual(parseNumeral('2tr5'), 2_500_000);
    assert.deepEqual(sys('chuyển hai trăm lẻ năm nghìn'), [{ entity: 'sys_number', text: 'hai trăm lẻ năm nghìn', value: 205_000 }]);
    assert.deepEqual(sys('một triệu rưỡi')[0]?.value, 1_500_000);
    assert.deepEqual(sys('hai mươi mốt')[0]?.value, 21);
    assert.deepEqual(sys('mười lăm')[0]?.value, 15);
    // Words that are names of a plain object's properties are not number words.
    assert.deepEqual(sys('hai constructor'), [{ entity: 'sys_number', text: 'hai', value: 2 }]);
    assert.deepEqual(sys('toString'), []);
    assert.deepEqual(sys('hai trăm năm')[0]?.value, 250, 'a lone digit after a hundred is its tens in speech');
    assert.deepEqual(sys('mot ty hai tram trieu')[0]?.value, 1_200_000_000, 'without diacritics');
    assert.deepEqual(sys('1,5 triệu')[0]?.value, 1_500_000);
  });

  test('a lone word that is a number only without its marks is not one', () => {
    assert.deepEqual(sys('nam mo'), []);
    assert.deepEqual(sys('bây giờ là mấy giờ'), []);
  });

  test('a lone "không", "tư", "mốt" or the "năm" after a number is a word, not a number', () => {
    assert.deepEqual(sys('chuyển khoản được không'), [], 'the question particle');
    assert.deepEqual(sys('thôi không lấy nữa'), [], 'the negation');
    assert.deepEqual(sys('em cần tư vấn'), []);
    assert.deepEqual(sys('chú Tư ơi'), []);
    assert.deepEqual(sys('gửi tiết kiệm 3 năm'), [{ entity: 'sys_number', text: '3', value: 3 }], 'years, not a five');
    assert.deepEqual(sys('năm người'), [{ entity: 'sys_number', text: 'năm', value: 5 }], 'five, alone');
    assert.deepEqual(sys('hai mươi mốt')[0]?.value, 21, 'still numbers inside a number');
    assert.deepEqual(sys('mười lăm')[0]?.value, 15);
    assert.deepEqual(sys('không nghìn')[0]?.value, undefined, 'a scale needs an amount');
    assert.deepEqual(sys('năm nay lãi bao nhiêu'), [], 'this year');
    assert.deepEqual(sys('năm 2025'), [{ entity: 'sys_number', text: '2025', value: 2025 }]);
    assert.deepEqual(sys('mười năm')[0]?.value, 10, 'ten years: fifteen is "mười lăm"');
    assert.deepEqual(sys('hai trăm lẻ năm')[0]?.value, 205);
  });

  test('numbers as chat writes them: a digit after a scale, a scale written apart, identifiers', () => {
    assert.deepEqual(sys('2 triệu 5')[0]?.value, 2_500_000);
    assert.deepEqual(sys('1 triệu 2')[0]?.value, 1_200_000);
    assert.deepEqual(sys('500 k'), [{ entity: 'sys_number', text: '500 k', value: 500_000 }]);
    assert.deepEqual(sys('một trăm k')[0]?.value, 100_000);
    assert.deepEqual(sys('2 tr')[0]?.value, 2_000_000);
    assert.deepEqual(sys('k biết'), [], 'the slang "k" (không) alone');
    assert.deepEqual(sys('gọi 0912345678 nhé'), [], 'a phone number is not a quantity');
    assert.deepEqual(sys('sđt 0912 345 678'), [], 'nor typed in groups');
    assert.deepEqual(sys('stk 1903 4567 8901 23'), [], 'an account number in groups');
    assert.deepEqual(sys('84912345678'), [], 'ten digits or more without separators');
    assert.deepEqual(sys('chuyển 100000000')[0]?.value, 100_000_000, 'nine digits: still a quantity');
    assert.deepEqual(sys('12 34').length, 2, 'two short numbers stay numbers');
    assert.deepEqual(sys('giá 1.200.000đ'), [{ entity: 'sys_number', text: '1.200.000đ', value: 1_200_000 }], 'a price with its currency sign');
    assert.deepEqual(sys('200.000vnđ')[0]?.value, 200_000);
    assert.deepEqual(sys('012')[0]?.value, 12);
  });

  test('percentages', () => {
    assert.deepEqual(sys('giảm ba mươi phần trăm'), [{ entity: 'sys_percent', text: 'ba mươi phần trăm', value: 30 }]);
    assert.deepEqual(sys('lãi 7% một năm')[0], { entity: 'sys_percent', text: '7%', value: 7 });
  });

  test('dates: dd/mm, words, relative days, weekdays', () => {
    assert.deepEqual(sys('ngày 15/8 tôi bay'), [{ entity: 'sys_date', text: '15/8', value: '2026-08-15' }]);
    assert.deepEqual(sys('ngày 2 tháng 9 năm 2025')[0]?.value, '2025-09-02');
    assert.deepEqual(sys('hôm nay')[0]?.value, '2026-11-25');
    assert.deepEqual(sys('ngày mai')[0]?.value, '2026-11-26');
    assert.deepEqual(sys('hom qua')[0]?.value, '2026-11-24');
    assert.deepEqual(sys('thứ hai tuần sau')[0]?.value, '2026-11-30');
    assert.ok(!sys('31/2').some((m) => m.entity === 'sys_date'), 'no 31 February');
    assert.deepEqual(sys('2026-08-15'), [{ entity: 'sys_date', text: '2026-08-15', value: '2026-08-15' }]);
    assert.ok(!sys('tầm 2-3 triệu').some((m) => m.entity === 'sys_date'), 'a range is not the 2nd of March');
    assert.deepEqual(sys('15-08-2026')[0]?.value, '2026-08-15', 'with its year a dash is a date');
    assert.deepEqual(sys('ngày 30')[0]?.value, '2026-11-30', 'a day of this month');
    assert.deepEqual(sys('ngày 5')[0]?.value, '2026-12-05', 'passed this month: the next');
    assert.deepEqual(sys('ngày 31')[0]?.value, '2026-12-31', 'November has no 31st');
    assert.deepEqual(sys('mùng 2 tháng 9')[0]?.value, '2026-09-02');
    assert.ok(!sys('mùng 5 tết').some((m) => m.entity === 'sys_date'), 'a lunar day is not a calendar one');
    assert.deepEqual(sys('uống thuốc ngày 2 lần'), [{ entity: 'sys_number', text: '2', value: 2 }], 'twice a day: a rate, not the 2nd');
    assert.deepEqual(sys('ngày 5 giờ chiều')[0], { entity: 'sys_time', text: '5 giờ chiều', value: '17:00:00' });
    assert.deepEqual(sys('có chuyến nào tối nay không'), [{ entity: 'sys_date', text: 'tối nay', value: '2026-11-25' }], 'a part of the day with its day');
    assert.deepEqual(sys('sáng mai')[0]?.value, '2026-11-26');
    assert.deepEqual(sys('chiều thứ hai')[0], { entity: 'sys_date', text: 'chiều thứ hai', value: '2026-11-30' });
    assert.deepEqual(sys('chieu mai')[0]?.value, '2026-11-26', 'without diacritics');
    assert.deepEqual(sys('tôi mai đi Huế'), [], '"tôi" (I) is not "tối"');
    assert.deepEqual(sys('toi mai di hue'), [], 'nor typed without marks before "mai"');
  });

  test('times and a time with its day', () => {
    assert.deepEqual(sys('đặt lịch 9 giờ sáng mai nhé'), [{ entity: 'sys_datetime', text: '9 giờ sáng mai', value: '2026-11-26T09:00:00' }]);
    assert.deepEqual(sys('hẹn 7h30 tối')[0], { entity: 'sys_time', text: '7h30 tối', value: '19:30:00' });
    assert.deepEqual(sys('chín giờ rưỡi tối nay')[0]?.value, '2026-11-25T21:30:00');
    assert.deepEqual(sys('2 gio chieu')[0]?.value, '14:00:00');
    assert.deepEqual(sys('10:15')[0]?.value, '10:15:00');
    assert.deepEqual(sys('9 giờ ngày 5')[0], { entity: 'sys_datetime', text: '9 giờ ngày 5', value: '2026-12-05T09:00:00' });
    assert.deepEqual(sys('10 giờ ngày 15/8')[0]?.value, '2026-08-15T10:00:00');
  });
});

describe('keyword dictionary', () => {
  const dict = new KeywordDictionary([
    { entity: 'city', value: 'Hồ Chí Minh', synonyms: ['Sài Gòn', 'tphcm'] },
    { entity: 'city', value: 'Hà Nội', synonyms: [] },
    { entity: 'place', value: 'Hồ', synonyms: [] },
  ]);

  test('longest match wins, accent-insensitive, real value is the canonical one', () => {
    const text = prepare('bay tu ho chi minh ra Ha Noi roi ve SÀI GÒN');
    const found = dict.match(text.tokens).map((m) => [
      m.entity,
      m.value,
      text.tokens
        .slice(m.first, m.last)
        .map((t) => t.text)
        .join(' '),
    ]);
    assert.deepEqual(found, [
      ['city', 'Hồ Chí Minh', 'ho chi minh'],
      ['city', 'Hà Nội', 'ha noi'],
      ['city', 'Hồ Chí Minh', 'sài gòn'],
    ]);
    assert.equal(dict.canonical('city', 'sai gon'), 'Hồ Chí Minh');
  });
});

describe('sequence tagger', () => {
  test('learns a free-text slot from its context and finds unseen values', () => {
    const names = ['Minh', 'Lan', 'Hùng', 'Thảo', 'Quân', 'Trâm'];
    const frames = [
      ['chuyển tiền cho', ''],
      ['gửi quà tới', 'nhé'],
      ['gọi cho', 'ngay'],
    ];
    const sentences = [];
    for (const name of names) {
      for (const [before, after] of frames) {
        const text = prepare(`${before} ${name} ${after}`.trim());
        const tags = text.tokens.map((t) => (t.text === name.toLowerCase() ? 'B-person' : 'O'));
        sentences.push({ tokens: text.tokens, surface: text.tokens.map((t) => text.chars.slice(t.start, t.end).join('')), hints: text.tokens.map(() => []), tags });
      }
    }
    const tagger = PerceptronTagger.train(sentences, { epochs: 8, seed: 1 });
    const restored = PerceptronTagger.fromData(JSON.parse(JSON.stringify(tagger.toData())));
    const text = prepare('chuyển tiền cho Dũng');
    const tags = restored.tag({ tokens: text.tokens, surface: ['chuyển', 'tiền', 'cho', 'Dũng'], hints: text.tokens.map(() => []) });
    assert.deepEqual(spansOf(tags), [{ entity: 'person', first: 3, last: 4 }]);
  });

  test('viterbi with word dropout: an unseen two-syllable value is found whole, and the document keeps the decoder', () => {
    const names = ['Minh Anh', 'Lan Chi', 'Hùng Cường', 'Thảo Vy', 'Quân Bảo', 'Trâm Oanh'];
    const frames = [
      ['chuyển tiền cho', 'hôm nay'],
      ['gửi quà tới', 'nhé'],
      ['gọi cho', 'ngay'],
    ];
    const sentences = [];
    for (const name of names) {
      for (const [before, after] of frames) {
        const text = prepare(`${before} ${name} ${after}`);
        const first = prepare(before!).tokens.length;
        const tags = text.tokens.map((_, i) => (i === first ? 'B-person' : i === first + 1 ? 'I-person' : 'O'));
        sentences.push({ tokens: text.tokens, surface: text.tokens.map((t) => text.chars.slice(t.start, t.end).join('')), hints: text.tokens.map(() => []), tags });
      }
    }
    const tagger = PerceptronTagger.train(sentences, { epochs: 10, seed: 1, wordDropout: 0.2, valueDropout: 0.4, decoder: 'viterbi' });
    const data = JSON.parse(JSON.stringify(tagger.toData()));
    assert.equal(data.decoder, 'viterbi');
    assert.ok(data.words.includes('chuyển'));
    const restored = PerceptronTagger.fromData(data);
    const text = prepare('gửi quà tới Dũng Khoa nhé');
    const tags = restored.tag({ tokens: text.tokens, surface: ['gửi', 'quà', 'tới', 'Dũng', 'Khoa', 'nhé'], hints: text.tokens.map(() => []) });
    assert.deepEqual(spansOf(tags), [{ entity: 'person', first: 3, last: 5 }]);
    // BIO holds: no I follows an O or another entity.
    tags.forEach((t, i) => {
      if (t.startsWith('I-')) assert.ok(tags[i - 1] === `B-${t.slice(2)}` || tags[i - 1] === t);
    });
  });

  test('a tagger document without decoder or words (trained before) still decodes greedily', () => {
    const old = { tags: ['O', 'B-person'], weights: { 'f-1=cho': [0, 2], bias: [1, 0] } };
    const tagger = PerceptronTagger.fromData(old);
    assert.equal(tagger.decoder, 'greedy');
    const text = prepare('gọi cho Lan');
    assert.deepEqual(tagger.tag({ tokens: text.tokens, surface: ['gọi', 'cho', 'Lan'], hints: text.tokens.map(() => []) }), ['O', 'O', 'B-person']);
  });

  test('spansOf reads BIO runs and treats a stray I as a start', () => {
    assert.deepEqual(spansOf(['B-a', 'I-a', 'O', 'I-b', 'B-a']), [
      { entity: 'a', first: 0, last: 2 },
      { entity: 'b', first: 3, last: 4 },
      { entity: 'a', first: 4, last: 5 },
    ]);
  });
});

describe('metrics', () => {
  test('the split is stratified and seeded', () => {
    const items = [...Array(10).keys()].map((i) => ({ id: i, c: 'a' })).concat([...Array(5).keys()].map((i) => ({ id: 10 + i, c: 'b' })));
    const one = stratifiedSplit(items, (x) => x.c, 0.2, 3);
    const two = stratifiedSplit(items, (x) => x.c, 0.2, 3);
    assert.deepEqual(one, two);
    assert.equal(one.test.filter((x) => x.c === 'a').length, 2);
    assert.equal(one.test.filter((x) => x.c === 'b').length, 1);
    assert.equal(one.train.length + one.test.length, 15);
  });

  test('macro F1 and exact-span F1', () => {
    const m = classificationMetrics(['a', 'a', 'b', 'b'], ['a', 'b', 'b', 'b']);
    assert.equal(m.accuracy, 0.75);
    assert.ok(Math.abs(m.f1 - (2 / 3 + 0.8) / 2) < 1e-9);
    const s = spanMetrics(
      [[{ entity: 'x', start: 0, end: 3 }]],
      [
        [
          { entity: 'x', start: 0, end: 3 },
          { entity: 'x', start: 4, end: 5 },
        ],
      ],
    );
    assert.equal(s.recall, 1);
    assert.equal(s.precision, 0.5);
  });
});

describe('the whole model', () => {
  // The first six samples of each intent.
  const intents = Object.fromEntries(Object.entries(TRAVEL_BOT).map(([intent, texts]) => [intent, texts.slice(0, 6)]));
  const cities = TRAVEL_CITIES;
  const examples: TrainingExample[] = Object.entries(intents).flatMap(([intent, texts]) =>
    texts.map((text) => {
      const city = cities.find((c) => text.includes(c));
      const entities = [];
      if (city) {
        const start = Array.from(text.slice(0, text.indexOf(city))).length;
        entities.push({ entity: 'city', start, end: start + Array.from(city).length });
      }
      return { text, intent, entities };
    }),
  );
  const data = trainModel({
    examples,
    entities: [{ label: 'city', type: 1, keywords: [{ value: 'Hồ Chí Minh', synonyms: ['Sài Gòn'] }] }],
    parts: { intent: true, entity: true },
    options: { holdout: 0.2 },
  });
  const model = new NluModel(JSON.parse(JSON.stringify(data)));

  test('ranks the right intent first with and without diacritics, confidences in 0-1', () => {
    for (const [text, intent] of [
      ['cho tôi vé máy bay đi Đà Nẵng', 'book_flight'],
      ['cho toi ve may bay di Da Nang', 'book_flight'],
      ['thoi tiet ha noi the nao', 'weather'],
      ['chào nhé', 'greeting'],
    ] as const) {
      const ranked = model.intents(text);
      assert.equal(ranked[0]?.label, intent, text);
      assert.ok(ranked.every((r) => r.confidence >= 0 && r.confidence <= 1));
      assert.ok(ranked[0]!.confidence >= ranked[1]!.confidence);
    }
  });

  test('entities: synonyms answer the canonical value, offsets are code points of the text as sent (NFD too)', () => {
    const text = 'vé đi Sài Gòn lúc 9 giờ sáng mai';
    const found = model.extract(text, REF);
    const city = found.find((e) => e.entity === 'city')!;
    assert.deepEqual({ start: city.start, end: city.end, value: city.value, real: city.real_value }, { start: 6, end: 13, value: 'Sài Gòn', real: 'Hồ Chí Minh' });
    assert.ok(found.some((e) => e.entity === 'sys_datetime' && e.real_value === '2026-11-26T09:00:00'));

    const nfd = text.normalize('NFD');
    const cityNfd = model.extract(nfd, REF).find((e) => e.entity === 'city')!;
    assert.equal(slicePoints(nfd, cityNfd.start, cityNfd.end), 'Sài Gòn'.normalize('NFD'));
    assert.equal(cityNfd.value, 'Sài Gòn'.normalize('NFD'));
  });

  test('predict reads the text once and answers what intents and extract answer', () => {
    const text = 'thoi tiet Sai Gon 9 gio sang mai';
    const both = model.predict(text, REF, { intent: true, entity: true });
    assert.deepEqual(both, { intents: model.intents(text), entities: model.extract(text, REF) });
    assert.deepEqual(Object.keys(model.predict(text, REF, { intent: false, entity: true })), ['entities']);
  });

  test('progress: every step reported in order, fractions never going back, ending at 1; the same model', () => {
    const seen: TrainProgress[] = [];
    const request = {
      examples,
      entities: [{ label: 'city', type: 1 as const, keywords: [{ value: 'Hồ Chí Minh', synonyms: ['Sài Gòn'] }] }],
      parts: { intent: true, entity: true },
      options: { holdout: 0.2 },
    };
    const reported = trainModel(request, (p) => seen.push(p));
    assert.deepEqual(reported, data, 'reporting changes nothing in the model');
    const steps = [...new Set(seen.map((p) => `${p.stage} ${p.part}`))];
    assert.deepEqual(steps, ['measuring entities', 'measuring intents', 'training intents', 'training entities']);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.fraction >= seen[i - 1]!.fraction, `${i}: ${seen[i - 1]!.fraction} -> ${seen[i]!.fraction}`);
    assert.equal(seen[0]!.fraction, 0);
    assert.equal(seen.at(-1)!.fraction, 1);
    assert.ok(seen.every((p) => p.pass >= 0 && p.pass <= p.passes));
  });

  test('past maxWeights (features x intents) the features held by the fewest samples go; the model still answers', () => {
    const full = data.intent!.vocabulary;
    const limit = 120;
    const entities = [{ label: 'city', type: 1 as const, keywords: [{ value: 'Hồ Chí Minh', synonyms: ['Sài Gòn'] }] }];
    const capped = trainModel({ examples, entities, parts: { intent: true, entity: false }, options: { holdout: 0, maxWeights: limit * 3 } }).intent!;
    assert.ok(full.length > 2 * limit, `the uncapped vocabulary (${full.length}) is well past the cap`);
    assert.equal(capped.vocabulary.length, limit);
    assert.equal(capped.featuresLeftOut, full.length - limit, 'the model says how many it left out');
    assert.equal(data.intent!.featuresLeftOut, undefined, 'none left out under the cap');
    assert.equal(Buffer.from(capped.weights, 'base64').length, limit * 3 * 4, 'one Float32 weight per kept feature and intent');
    // Words most samples of an intent hold stay ("bay", "chào", "không", keyed by tone); the syllable of one sample ("trợ") goes.
    for (const kept of ['f:bay', 'w:chao2', 'f:khong']) assert.ok(capped.vocabulary.includes(kept), kept);
    assert.ok(full.includes('w:trơ5') && !capped.vocabulary.includes('w:trơ5'), 'the "trợ" of one sample went');
    const small = new NluModel({ ...data, intent: capped, entity: undefined });
    for (const [text, intent] of [
      ['vé máy bay đi Huế', 'book_flight'],
      ['thời tiết Hà Nội', 'weather'],
      ['xin chào', 'greeting'],
    ] as const) {
      assert.equal(small.intents(text)[0]?.label, intent, text);
    }
  });

  test('metrics from the held-out split are stored with the model', () => {
    assert.ok(data.metrics.intent);
    assert.ok(data.metrics.intent.test_size >= 3);
    assert.ok(data.metrics.intent.accuracy >= 0 && data.metrics.intent.accuracy <= 1);
  });

  test('folded features make the unmarked text share features with the marked one; its syllables as written do not', () => {
    const marked = new Set(featureStrings('đặt vé'));
    const plain = featureStrings('dat ve');
    assert.ok(plain.includes('f:dat') && marked.has('f:dat'));
    assert.ok(!plain.some((f) => (f.startsWith('w:') || f.startsWith('b:')) && marked.has(f)));
  });
});

describe('intent features and linear models', () => {
  test('spread weights: a feature every class uses weighs its group weight, one only a class uses weighs more', () => {
    const vocabulary = ['w:cho', 'w:bay', 'c:ay', 'b:<s> cho'];
    // Three classes; "cho" in all of them, "bay" and its n-gram in class 0 only.
    const examples = [
      { features: [0, 1, 2, 3], label: 0 },
      { features: [0], label: 1 },
      { features: [0, 3], label: 2 },
    ];
    const w = spreadWeights(vocabulary, examples, 3);
    const single = Math.log(4 / 2) + 1;
    assert.ok(Math.abs(w[0]! - 1) < 1e-6, 'in every class');
    assert.ok(Math.abs(w[1]! - single) < 1e-6, 'in one class');
    assert.ok(Math.abs(w[2]! - 0.5 * single) < 1e-6, 'a character n-gram at half weight');
    assert.ok(Math.abs(w[3]! - 0.5 * (Math.log(4 / 3) + 1)) < 1e-6, 'a bigram in two classes');
  });

  test("feature values are the features' weights scaled to unit length; without weights all equal", () => {
    const values = featureValues([0, 2], Float32Array.from([3, 9, 4]));
    assert.ok(Math.abs(values[0]! - 0.6) < 1e-6 && Math.abs(values[1]! - 0.8) < 1e-6);
    const plain = featureValues([0, 1, 2, 3], undefined);
    assert.ok(plain.every((v) => Math.abs(v - 0.5) < 1e-9));
    assert.deepEqual(featureValues([], undefined), []);
  });

  test('the softmax learns a separable toy set', () => {
    // Features 0-1 mark class 0, 2-3 class 1, 4 is everywhere; class 1 has twice the examples.
    const examples = [
      { features: [0, 4], label: 0 },
      { features: [1, 4], label: 0 },
      { features: [2, 4], label: 1 },
      { features: [3, 4], label: 1 },
      { features: [2, 3, 4], label: 1 },
      { features: [2, 3], label: 1 },
    ];
    const model = trainLinear(examples, 2, 5, DEFAULT_LINEAR, Float32Array.from([2, 2, 2, 2, 1]));
    for (const [features, label] of [
      [[0, 4], 0],
      [[1], 0],
      [[3, 4], 1],
    ] as const) {
      const s = scores(model, [...features]);
      assert.equal(s[label]! > s[1 - label]!, true, features.join(','));
    }
  });

  test('character n-grams inside syllables only: none spans two syllables', () => {
    const within = featureStrings('không lấy').filter((f) => f.startsWith('c:'));
    assert.ok(!within.some((f) => /\S \S/u.test(f.slice(2))), within.join(' '));
    assert.ok(within.includes('c: la') && within.includes('c:ay '));
  });

  test("a free-text value's words stand only as its entity; a listed keyword keeps them", () => {
    const text = prepare('chuyển tiền cho chị Hoa');
    const value = { entity: 'person', first: 3, last: 5 };
    const hidden = featureStrings(text, [{ ...value, hide: true }]);
    assert.ok(hidden.includes('e:person') && hidden.includes('b:cho <person>'));
    assert.ok(!hidden.some((f) => f === 'w:hoa' || f === 'f:hoa' || f === 'w:chị' || f.includes('hoa')), hidden.join(' '));
    const kept = featureStrings(text, [value]);
    assert.ok(kept.includes('e:person') && kept.includes('w:hoa'));
  });

  test('tone keys: a tone on either vowel is one syllable; other marks and syllables without a tone are kept', () => {
    assert.equal(toneKey('huỷ'), toneKey('hủy'));
    assert.equal(toneKey('hoà'), toneKey('hòa'));
    assert.equal(toneKey('hủy'), 'huy3');
    assert.equal(toneKey('thời'), 'thơi2');
    assert.equal(toneKey('thôi'), 'thôi');
    assert.notEqual(toneKey('thôi'), toneKey('thời'));
    assert.equal(toneKey('ko'), 'ko');
    assert.deepEqual(featureStrings('huỷ đơn'), featureStrings('hủy đơn'));
    assert.ok(featureStrings('hủy đơn').includes('w:huy3') && featureStrings('hủy đơn').includes('f:huy'), 'hủy keyed huy3, folded huy');
  });

  test('strict marks: a marked syllable the vocabulary lacks as written has no folded features at prediction; unmarked ones keep theirs', () => {
    const known = new Set(featureStrings('thời tiết'));
    const has = (f: string) => known.has(f);
    // Training (no vocabulary): every feature.
    assert.ok(featureStrings('thôi nhé').includes('f:thoi'), 'training keeps every feature');
    // Prediction: "thôi" was never seen as written, so neither its folded syllable, bigrams nor n-grams.
    const read = featureStrings('thôi nhé', [], has);
    assert.ok(read.includes('w:thôi'), read.join(' '));
    assert.ok(!read.some((f) => f === 'f:thoi' || f.startsWith('fb:<s> thoi') || (f.startsWith('c:') && f.includes('tho'))), read.join(' '));
    // "tiết" was seen: its folded features stay; "thoi" typed without marks keeps its own.
    assert.ok(featureStrings('thơi tiết', [], has).includes('f:tiet'), 'a known marked syllable keeps its folded one');
    assert.ok(featureStrings('thoi tiet', [], has).includes('f:thoi'), 'an unmarked syllable keeps its folded one');
    const examples: TrainingExample[] = [
      ...['thời tiết hôm nay', 'thời tiết mai', 'xem thời tiết', 'thời tiết thế nào'].map((text) => ({ text, intent: 'weather', entities: [] })),
      ...['không mua nữa', 'hủy đơn', 'bỏ đơn đi', 'không cần nữa'].map((text) => ({ text, intent: 'cancel', entities: [] })),
    ];
    const strict = new NluModel(trainModel({ examples, entities: [], parts: { intent: true, entity: false }, options: { holdout: 0 } }));
    assert.equal(strict.intents('thôi lấy')[0], undefined, 'nothing known is left');
    assert.equal(strict.intents('thôi không lấy nữa')[0]?.label, 'cancel');
    assert.equal(strict.intents('thoi tiet mai')[0]?.label, 'weather');
    assert.equal(strict.intents('huỷ đơn')[0]?.label, 'cancel');
  });

  const toy: TrainingExample[] = [
    ['mua giúp em cái áo', 'order'],
    ['đặt mua đôi giày nhé', 'order'],
    ['mình mua cái balo', 'order'],
    ['mua thêm cái mũ', 'order'],
    ['mở bài Lạc trôi', 'music'],
    ['phát bài Nơi này có anh', 'music'],
    ['nghe bài Hãy trao cho anh', 'music'],
    ['mở bài Bạc phận đi', 'music'],
  ].map(([text, intent]) => {
    const value = text!.match(/(?<=cái |đôi |bài ).*?(?= nhé| đi|$)/u)![0];
    const start = Array.from(text!.slice(0, text!.indexOf(value))).length;
    return { text: text!, intent: intent!, entities: [{ entity: intent === 'order' ? 'product' : 'song', start, end: start + Array.from(value).length }] };
  });
  const toyEntities = [
    { label: 'product', type: 3 as const },
    { label: 'song', type: 3 as const },
  ];

  test('the model stores its feature weights and answers the same after a JSON round trip', () => {
    const data = trainModel({ examples: toy, entities: toyEntities, parts: { intent: true, entity: false }, options: { holdout: 0 } });
    assert.ok(data.intent?.featureWeights);
    const reloaded = new NluModel(JSON.parse(JSON.stringify(data)));
    const direct = new NluModel(data);
    for (const text of ['mua cái áo khoác', 'mở bài See tình']) assert.deepEqual(reloaded.intents(text), direct.intents(text));
    assert.equal(reloaded.intents('mua cái quần')[0]?.label, 'order');
  });

  test('a document of another feature set or classifier is refused, with the advice to train again', () => {
    const data = trainModel({ examples: toy, entities: toyEntities, parts: { intent: true, entity: false }, options: { holdout: 0 } });
    const other = { ...data, intent: { ...data.intent!, featureSet: 'weighted' } } as unknown as typeof data;
    assert.throws(() => new NluModel(other), /train the model again/);
  });

  test('free-text masks: tagged spans stand as <entity> in training, the tagger finds them at prediction', () => {
    const masked = trainModel({ examples: toy, entities: toyEntities, parts: { intent: true, entity: true }, options: { holdout: 0 } });
    assert.deepEqual(masked.intent?.freeText, ['product', 'song']);
    assert.ok(masked.intent?.vocabulary.includes('e:song'), 'the song stands as its entity');
    // The default keys syllables as written by their tone (`toneKey`): "bài" is "bai2".
    assert.ok(masked.intent?.vocabulary.includes(`b:${toneKey('bài')} <song>`), 'the bigram before the song is learnt with the song as its entity');
    const model = new NluModel(masked);
    assert.equal(model.intents('mở bài Chúng ta của hiện tại')[0]?.label, 'music');
  });

  test('a text typed without any diacritics is read through its folded features only', () => {
    assert.equal(unmarked(prepare('dat ve di hue 15/8')), true);
    assert.equal(unmarked(prepare('dat vé di hue')), false);
    assert.equal(viewOf(prepare('dat ve')), 'folded');
    assert.equal(viewOf(prepare('đặt vé')), 'all');
    // "ban" as written is a word of the training data ("ban công"), but the unmarked "ban" of "bạn" is not taken for it.
    const examples: TrainingExample[] = [
      ...['ban công tối quá', 'ban công nóng quá', 'ban công có gió', 'đèn ban công', 'ban công bẩn'].map((text) => ({ text, intent: 'home', entities: [] })),
      ...['chào bạn nhé', 'bạn khỏe không', 'bạn tên gì', 'hỏi bạn chút', 'bạn ở đâu'].map((text) => ({ text, intent: 'chat', entities: [] })),
    ];
    const model = new NluModel(trainModel({ examples, entities: [], parts: { intent: true, entity: false }, options: { holdout: 0 } }));
    // Read with its syllables as written, "ban à" typed bare would be "ban công" (the features w:ban, b:<s> ban).
    assert.equal(model.intents('ban a')[0]?.label, 'chat');
  });
});
