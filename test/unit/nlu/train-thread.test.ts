/**
 * Trainings on the worker thread (`threadTrainer`): the document it answers is the one `trainModel` makes on the
 * event loop, its progress crosses the thread on a message port (in order, up to the whole), and an aborted
 * training rejects.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { threadTrainer } from '../../../src/nlu/index.js';
import { trainModel, type TrainProgress, type TrainRequest } from '../../../src/nlu/engine/model.js';

const ROWS: [string, string[]][] = [
  ['book_flight', ['đặt vé máy bay đi Hà Nội', 'mua vé máy bay ngày mai', 'tôi muốn bay ra hn', 'còn vé máy bay không', 'vé đi Huế giá bao nhiêu']],
  ['weather', ['thời tiết Hà Nội hôm nay', 'ngày mai trời có mưa không', 'dự báo thời tiết', 'trời nóng không', 'Huế có lạnh không']],
  ['greeting', ['xin chào', 'chào bạn', 'chào buổi sáng', 'hello bạn ơi', 'chào em nhé']],
];
const request: TrainRequest = {
  examples: ROWS.flatMap(([intent, texts]) => texts.map((text) => ({ text, intent, entities: [] }))),
  entities: [{ label: 'city', type: 2, keywords: [{ value: 'Hà Nội', synonyms: ['hn'] }] }],
  parts: { intent: true, entity: true },
};

describe('NLU training on a worker thread', () => {
  const { trainer, close } = threadTrainer();
  after(close);

  test('answers the event loop’s model document, and reports its progress up to the whole', async () => {
    const seen: TrainProgress[] = [];
    const document = await trainer(request, (p) => seen.push(p));
    assert.deepEqual(JSON.parse(document), JSON.parse(JSON.stringify(trainModel(request))));
    // Every report was heard by the time the answer is: the last one is the whole.
    assert.ok(seen.length >= 3, `${seen.length} reports`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.fraction >= seen[i - 1]!.fraction);
    assert.equal(seen.at(-1)!.fraction, 1);
    assert.ok(seen.every((p) => ['measuring', 'training'].includes(p.stage) && ['intents', 'entities'].includes(p.part)));
  });

  test('without a listener it trains all the same; an aborted training rejects', async () => {
    assert.ok(JSON.parse(await trainer(request)).intent.labels.length === 3);
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(trainer(request, () => undefined, aborted.signal));
  });
});
