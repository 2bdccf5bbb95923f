/**
 * `npx tsx eval/nlu/predict-loop.ts [--seconds S]`: the engine's predict in a loop, for CPU per prediction
 * and profiles (`node --cpu-prof --import tsx bench/nlu-predict-loop.ts`). Two models: the eval's 20-intent
 * model with the generated set's entities over its test sentences (written, without diacritics, noisy), and
 * the HTTP bench's intent-only model on the bench's sentence. Prints CPU µs per prediction (after a warm-up).
 */
import os from 'node:os';
import { generateDataset } from '../fixtures/nlu/dataset.js';
import { NluModel, trainModel } from '../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../src/nlu/engine/system-entities.js';
import { definitionsOf } from '../fixtures/nlu/definitions.js';
import { BENCH_SENTENCE } from '../fixtures/nlu/bench-model.js';

const SEED = 20261125;
const at = process.argv.indexOf('--seconds');
const SECONDS = at > 0 ? Number(process.argv[at + 1]) : 3;
const ref = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };

const twenty = generateDataset({ perIntent: 67, testPerIntent: 20, seed: SEED + 1, intents: 20 });
const full = new NluModel(
  trainModel({
    examples: twenty.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities })),
    entities: definitionsOf(twenty.entities),
    parts: { intent: true, entity: true },
    options: { holdout: 0 },
  }),
);
const httpSet = generateDataset({ perIntent: 30, testPerIntent: 1, seed: 7, intents: 20 });
const intentOnly = new NluModel(
  trainModel({ examples: httpSet.train.map((s) => ({ text: s.text, intent: s.intent, entities: [] })), entities: [], parts: { intent: true, entity: true } }),
);
const texts = [...twenty.test.written, ...twenty.test.noMarks, ...twenty.test.noisy].map((s) => s.text);
const httpText = BENCH_SENTENCE;

/** CPU µs per prediction over about `seconds` of predicting, after a one-second warm-up. */
function cpuPerPrediction(model: NluModel, list: string[], seconds: number): number {
  const run = (ms: number) => {
    const c0 = process.cpuUsage();
    const end = performance.now() + ms;
    let n = 0;
    while (performance.now() < end) {
      for (let k = 0; k < 50; k++) model.predict(list[n++ % list.length]!, ref, { intent: true, entity: true });
    }
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / n;
  };
  run(1000);
  return run(seconds * 1000);
}

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log(`20 intents + entities, ${texts.length} test sentences: ${cpuPerPrediction(full, texts, SECONDS).toFixed(1)} µs CPU a prediction (load ${load()})`);
console.log(`HTTP bench model, its sentence: ${cpuPerPrediction(intentOnly, [httpText], SECONDS).toFixed(1)} µs CPU a prediction (load ${load()})`);
