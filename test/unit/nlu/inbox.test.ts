import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosine, groupSimilar, textVector } from '../../../src/nlu/engine/similarity.js';
import { unsureReasons } from '../../../src/nlu/inbox.js';
import { maskPersonalData } from '../../../src/nlu/masking.js';

test('masking covers numbers, phone numbers, e-mail addresses and ids, keeping the length in code points', () => {
  const cases: [string, string][] = [
    ['số tôi là 0901-234-567', 'số tôi là ####-###-###'],
    ['email an.nguyen@example.com nhé', 'email **.******@*******.*** nhé'],
    ['CCCD 001099012345, mã đơn AB12CD', 'CCCD ############, mã đơn ######'],
    ['chuyển 1.500.000 đồng lúc 9h30', 'chuyển #.###.### đồng lúc ####'],
    ['không có gì để che', 'không có gì để che'],
  ];
  for (const [text, masked] of cases) {
    assert.equal(maskPersonalData(text), masked);
    assert.equal(Array.from(maskPersonalData(text)).length, Array.from(text).length);
  }
});

test('a prediction is unsure under the threshold, with a close second, or with no intent', () => {
  assert.deepEqual(unsureReasons([], 0.3), ['no_intent']);
  assert.deepEqual(
    unsureReasons(
      [
        { label: 'a', confidence: 0.9 },
        { label: 'b', confidence: 0.05 },
      ],
      0.3,
    ),
    [],
  );
  assert.deepEqual(
    unsureReasons(
      [
        { label: 'a', confidence: 0.25 },
        { label: 'b', confidence: 0.05 },
      ],
      0.3,
    ),
    ['low_confidence'],
  );
  assert.deepEqual(
    unsureReasons(
      [
        { label: 'a', confidence: 0.45 },
        { label: 'b', confidence: 0.4 },
      ],
      0.3,
    ),
    ['close_second'],
  );
  assert.deepEqual(
    unsureReasons(
      [
        { label: 'a', confidence: 0.2 },
        { label: 'b', confidence: 0.15 },
      ],
      0.3,
    ),
    ['low_confidence', 'close_second'],
  );
});

test('similar texts share a group, with or without diacritics; different requests do not', () => {
  const texts = [
    'đặt phòng khách sạn ở Huế',
    'mình muốn đặt phòng khách sạn',
    'dat phong khach san o Ha Noi',
    'thời tiết hôm nay thế nào',
    'thoi tiet hom nay the nao vay',
  ];
  assert.deepEqual(groupSimilar(texts), [
    [0, 1, 2],
    [3, 4],
  ]);
  assert.equal(cosine(textVector('xin chào'), textVector('xin chào')).toFixed(6), '1.000000');
  assert.equal(cosine(textVector(''), textVector('xin chào')), 0);
});
