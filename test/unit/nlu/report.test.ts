import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TrainingExample } from '../../../src/nlu/engine/model.js';
import { crossValidate, foldsOf } from '../../../src/nlu/engine/report.js';

const texts: Record<string, string[]> = {
  weather: ['thời tiết Huế hôm nay', 'Hà Nội có mưa không', 'trời Sài Gòn nóng không', 'dự báo thời tiết Huế', 'nhiệt độ Hà Nội bao nhiêu'],
  greeting: ['xin chào', 'chào bạn', 'chào buổi sáng', 'hello bạn ơi', 'chào em nhé'],
  flight: ['đặt vé máy bay đi Huế', 'mua vé bay ra Hà Nội', 'bay vào Sài Gòn', 'chuyến bay đi Huế', 'vé máy bay Hà Nội'],
};
const CITIES = ['Huế', 'Hà Nội', 'Sài Gòn'];
const examples: TrainingExample[] = Object.entries(texts).flatMap(([intent, list]) =>
  list.map((text) => {
    const city = CITIES.find((c) => text.includes(c));
    const start = city ? Array.from(text.slice(0, text.indexOf(city))).length : 0;
    return { text, intent, entities: city ? [{ entity: 'city', start, end: start + Array.from(city).length }] : [] };
  }),
);

test('folds are stratified by intent and even', () => {
  const folds = foldsOf(examples, 5, 7);
  const perFold = [0, 1, 2, 3, 4].map((k) => folds.filter((f) => f === k).length);
  assert.deepEqual(perFold, [3, 3, 3, 3, 3]);
  for (const intent of Object.keys(texts)) {
    assert.equal(new Set(examples.flatMap((e, i) => (e.intent === intent ? [folds[i]] : []))).size, 5, `${intent} spread over the folds`);
  }
  assert.deepEqual(foldsOf(examples, 5, 7), folds, 'seeded');
});

test('the report predicts each sample once with a model that did not learn it, per intent and per entity label', () => {
  const report = crossValidate({ examples, entities: [{ label: 'city', type: 1 }], parts: { intent: true, entity: true } });
  assert.equal(report.samples, 15);
  assert.deepEqual(report.intents.per_intent.map((r) => r.intent).sort(), ['flight', 'greeting', 'weather']);
  assert.equal(
    report.intents.per_intent.reduce((n, r) => n + r.support, 0),
    15,
  );
  const wrong = report.confusions.reduce((n, c) => n + c.count, 0);
  assert.equal(Math.round((1 - report.intents.accuracy) * 15), wrong, 'every miss is in a confusion pair');
  assert.equal(report.confused_samples.length, Math.min(wrong, 20));
  assert.deepEqual(
    report.entities.per_label.map((r) => [r.entity, r.support]),
    [['city', 10]],
  );
  assert.ok(report.entities.micro.f1 > 0);
});
