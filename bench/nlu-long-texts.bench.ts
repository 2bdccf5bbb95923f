/**
 * `npm run bench -- nlu-long` (or `npx tsx bench/run.ts nlu-long`): the engine's predict (intents + entities) on texts at the API's limit of
 * 20,000 characters, shaped to load each stage (thousands of numbers, dates, entities, emoji, combining marks, no
 * spaces), one row each: characters, milliseconds (the best of 3 after a warm-up), entities found. Long texts run
 * on the prediction threads, but a thread held for a second by one request is a denial of service all the same:
 * every stage must stay linear in the text. The model is the 30-intent generated one (`fixtures/nlu/dataset.ts`).
 */
import type { Benchmark, BenchRow } from './harness.js';
import { generateDataset } from '../fixtures/nlu/dataset.js';
import { NluModel, trainModel } from '../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../src/nlu/engine/system-entities.js';
import { definitionsOf } from '../fixtures/nlu/definitions.js';

const bench: Benchmark = async () => {
  const LIMIT = 20_000;
  const data = generateDataset({ perIntent: 67, testPerIntent: 5, seed: 5 });
  const model = new NluModel(
    trainModel({
      examples: data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) })),
      entities: definitionsOf(data.entities),
      parts: { intent: true, entity: true },
      options: { holdout: 0, seed: 5 },
    }),
  );
  const ref = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };
  const fill = (unit: string) => unit.repeat(Math.ceil(LIMIT / unit.length)).slice(0, LIMIT);
  const cases: Record<string, string> = {
    'a chat sentence, repeated': fill('chuyển tiền cho em Quân 500k '),
    '"một" x 5,000': fill('một '),
    '"hai mươi" x 2,200': fill('hai mươi '),
    'digits, spaced': fill('1 '),
    'one numeral': fill('1'),
    'dotted numerals': fill('1.000.'),
    weekdays: fill('thứ hai tuần sau '),
    'times with days': fill('9 giờ sáng mai '),
    capitals: fill('Chúng Ta '),
    emoji: fill('😀'),
    'no spaces': fill('a'),
    'combining marks': fill('a\u0301'),
  };
  const rows: BenchRow[] = [];
  for (const [name, text] of Object.entries(cases)) {
    let found = model.predict(text, ref, { intent: true, entity: true });
    let best = Infinity;
    for (let run = 0; run < 3; run++) {
      const t0 = process.hrtime.bigint();
      found = model.predict(text, ref, { intent: true, entity: true });
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
    }
    rows.push({
      benchmark: `NLU predict, 20,000 characters: ${name}`,
      metric: 'latency (best of 3)',
      value: best,
      unit: 'ms',
      note: `${[...text].length} code points, ${found.entities?.length ?? 0} entities`,
    });
  }
  return rows;
};
export default bench;
