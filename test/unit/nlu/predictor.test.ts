/**
 * Predictions on worker threads (`ThreadPredictor`) answer exactly what the event loop's `InlinePredictor`
 * answers, with the real engine: short texts on the event loop and longer ones on a thread, the batch protocol (models sent once per thread, on `missing`), batches
 * larger than one message holds, two models in one batch, a model document that does not load, the bound on
 * waiting predictions, and closing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { PlatformError } from '../../../src/platform/http/errors.js';
import { trainModel } from '../../../src/nlu/engine/model.js';
import { createPredictor, defaultPredictThreads, InlinePredictor, ThreadPredictor, type Prediction } from '../../../src/nlu/predictor.js';

const NOW = Date.UTC(2026, 7, 14, 3, 0, 0);
const ALL = { intent: true, entity: true };

function document(rows: [string, string[]][]): string {
  const examples = rows.flatMap(([intent, texts]) => texts.map((text) => ({ text, intent, entities: [] })));
  return JSON.stringify(
    trainModel({ examples, entities: [{ label: 'city', type: 2, keywords: [{ value: 'Hà Nội', synonyms: ['hn'] }] }], parts: { intent: true, entity: true } }),
  );
}

const travel = document([
  ['book_flight', ['đặt vé máy bay đi Hà Nội', 'mua vé máy bay ngày mai', 'tôi muốn bay ra hn', 'còn vé máy bay không']],
  ['weather', ['thời tiết Hà Nội hôm nay', 'ngày mai trời có mưa không', 'dự báo thời tiết', 'trời nóng không']],
]);
const home = document([
  ['turn_on', ['bật đèn phòng khách', 'bật quạt lên', 'mở đèn giúp tôi', 'bật điều hòa']],
  ['turn_off', ['tắt đèn phòng khách', 'tắt quạt đi', 'tắt hết đèn', 'tắt điều hòa']],
]);
/** A prediction that went to a thread (inlineChars 0): a promise. */
function onThread(answer: Prediction | Promise<Prediction>): Promise<Prediction> {
  assert.ok(answer instanceof Promise, 'sent to a thread');
  return answer;
}

const TEXTS = [
  'đặt vé đi hn lúc 9 giờ sáng mai',
  'thoi tiet ha noi the nao',
  'bật đèn phòng ngủ',
  'tắt quạt nhé',
  'mua 2 vé máy bay 1,5 triệu',
  'ngày 15/8 trời mưa không',
];

describe('NLU predictions on worker threads', () => {
  const threads = new ThreadPredictor({ threads: 2, inlineChars: 0, maxWaiting: 10_000, timeoutMs: 30_000, idleTimeoutMs: 60_000 });
  after(() => threads.close());
  const inline = new InlinePredictor();

  test('the same answers as on the event loop, two models in one batch, more predictions than one batch holds', async () => {
    const served = { a: threads.load('app-a\u0000m1', travel), b: threads.load('app-b\u0000m1', home) };
    const expected = { a: inline.load('app-a\u0000m1', travel), b: inline.load('app-b\u0000m1', home) };
    // 600 predictions asked in one turn: several batches (256 at most each), both models, both threads.
    const asked = Array.from({ length: 600 }, (_, i) => ({ which: i % 2 === 0 ? ('a' as const) : ('b' as const), text: TEXTS[i % TEXTS.length]! }));
    const answers = await Promise.all(asked.map(({ which, text }) => onThread(threads.predict(served[which], text, NOW, ALL))));
    answers.forEach((answer, i) => {
      const { which, text } = asked[i]!;
      assert.deepEqual(answer, inline.predict(expected[which], text, NOW, ALL), `${which}: ${text}`);
    });
    assert.equal(answers[0]!.intents?.[0]?.label, 'book_flight');
    assert.ok(answers[0]!.entities?.some((e) => e.entity === 'city'));
    // Batched: fewer messages than predictions (600 asked in one turn: 3 batches of at most 256, and the resends).
    const stats = threads.stats();
    assert.ok(stats.predictions >= 600 && stats.batches >= 3 && stats.batches <= 12, JSON.stringify(stats));
    assert.ok(stats.threads >= 1 && stats.threads <= 2);
    assert.equal(stats.waiting, 0);
    // One half only, as /predict/intent and /predict/entity ask.
    const intentOnly = await threads.predict(served.a, TEXTS[0]!, NOW, { intent: true, entity: false });
    assert.ok(intentOnly.intents && !intentOnly.entities);
  });

  test('a newer model of the same application is a new key: its answers, not the old ones', async () => {
    const older = threads.load('app-c\u0000m1', travel);
    const newer = threads.load('app-c\u0000m2', home);
    const old = await threads.predict(older, 'bật đèn phòng ngủ', NOW, ALL);
    assert.ok(old.intents!.every((i) => i.label === 'book_flight' || i.label === 'weather'));
    const answer = await threads.predict(newer, 'bật đèn phòng ngủ', NOW, ALL);
    assert.equal(answer.intents?.[0]?.label, 'turn_on');
    assert.ok(!answer.intents?.some((i) => i.label === 'book_flight'));
  });

  test('a model document that does not load fails its own predictions only', async () => {
    const broken = threads.load('app-d\u0000m1', '{"format": "saola.nlu.model.v1", "intent": ');
    const good = threads.load('app-e\u0000m1', home);
    const [bad, fine] = await Promise.allSettled([threads.predict(broken, 'bật đèn', NOW, ALL), threads.predict(good, 'bật đèn', NOW, ALL)]);
    assert.equal(bad.status, 'rejected');
    assert.match(String((bad as PromiseRejectedResult).reason), /could not be loaded/);
    assert.equal(fine.status, 'fulfilled');
    assert.equal((fine as PromiseFulfilledResult<{ intents?: { label: string }[] }>).value.intents?.[0]?.label, 'turn_on');
  });

  test('past the waiting bound a prediction is refused as busy at once', async () => {
    const small = new ThreadPredictor({ threads: 1, inlineChars: 0, maxWaiting: 2, timeoutMs: 30_000, idleTimeoutMs: 60_000 });
    try {
      const served = small.load('app-f\u0000m1', home);
      const accepted = [onThread(small.predict(served, 'bật đèn', NOW, ALL)), onThread(small.predict(served, 'tắt đèn', NOW, ALL))];
      assert.throws(
        () => small.predict(served, 'bật quạt', NOW, ALL),
        (err) => err instanceof PlatformError && err.condition === 'busy',
      );
      const [on, off] = await Promise.all(accepted);
      assert.equal(on!.intents?.[0]?.label, 'turn_on');
      assert.equal(off!.intents?.[0]?.label, 'turn_off');
      // Once the waiting ones went to the thread, there is room again.
      assert.equal((await small.predict(served, 'bật quạt', NOW, ALL)).intents?.[0]?.label, 'turn_on');
    } finally {
      await small.close();
    }
  });

  test('texts up to inlineChars are answered on the event loop, longer ones on a thread: the same answers', async () => {
    const mixed = new ThreadPredictor({ threads: 1, inlineChars: 20, maxWaiting: 100, timeoutMs: 30_000, idleTimeoutMs: 60_000 });
    try {
      const served = mixed.load('app-g\u0000m1', travel);
      const expected = inline.load('app-g\u0000m1', travel);
      const short = 'đặt vé đi hn';
      const long = 'cho mình đặt hai vé máy bay đi Hà Nội lúc 9 giờ sáng mai nhé, giá dưới 1,5 triệu';
      const shortAnswer = mixed.predict(served, short, NOW, ALL);
      assert.ok(!(shortAnswer instanceof Promise), 'a short text is answered in the call');
      assert.deepEqual(shortAnswer, inline.predict(expected, short, NOW, ALL));
      assert.deepEqual(mixed.stats(), { threads: 0, waiting: 0, batches: 0, predictions: 0, inline: 1 });
      const longAnswer = mixed.predict(served, long, NOW, ALL);
      assert.ok(longAnswer instanceof Promise, 'a long text goes to a thread');
      assert.deepEqual(await longAnswer, inline.predict(expected, long, NOW, ALL));
      const stats = mixed.stats();
      assert.equal(stats.inline, 1);
      assert.ok(stats.predictions >= 1 && stats.batches >= 1 && stats.threads === 1, JSON.stringify(stats));
    } finally {
      await mixed.close();
    }
  });

  test('a model whose document is past inlineModelChars is predicted on a thread even for a short text', async () => {
    const big = new ThreadPredictor({ threads: 1, inlineChars: 1_000, inlineModelChars: travel.length - 1, maxWaiting: 100, timeoutMs: 30_000, idleTimeoutMs: 60_000 });
    try {
      const served = big.load('app-h\u0000m1', travel);
      const answer = big.predict(served, 'đặt vé đi hn', NOW, ALL);
      assert.ok(answer instanceof Promise, 'the short text went to a thread');
      assert.deepEqual(await answer, inline.predict(inline.load('app-h\u0000m1', travel), 'đặt vé đi hn', NOW, ALL));
      assert.equal(big.stats().inline, 0);
    } finally {
      await big.close();
    }
  });

  test('threads by default: one fewer than the cores, at most 4; none on one core (the event loop predicts)', () => {
    assert.equal(defaultPredictThreads(1), 0);
    assert.equal(defaultPredictThreads(2), 1);
    assert.equal(defaultPredictThreads(16), 4);
    assert.ok(createPredictor(0) instanceof InlinePredictor);
  });
});
