/**
 * `npx tsx eval/nlu/train-scale.ts [PER_INTENT]` (default 1000): one training as the API trains it (measured on a
 * held-out 20%, then trained on everything) of a large generated set (30 intents, `PER_INTENT` samples drawn per
 * intent before duplicates are dropped), on this thread: wall and CPU time, the model document's size and the
 * process's resident memory after it (`/usr/bin/time -v` for the peak). For how far one training thread goes.
 */
import { generateDataset } from '../fixtures/nlu/dataset.js';
import { trainModel } from '../src/nlu/engine/model.js';
import { definitionsOf } from '../fixtures/nlu/definitions.js';

const perIntent = Number(process.argv[2] ?? 1000);
const data = generateDataset({ perIntent, testPerIntent: 5, seed: 5 });
const examples = data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) }));
const started = Date.now();
const cpu = process.cpuUsage();
let last = -1;
const document = trainModel({ examples, entities: definitionsOf(data.entities), parts: { intent: true, entity: true }, options: { holdout: 0.2, seed: 5 } }, (p) => {
  const decile = Math.floor(p.fraction * 10);
  if (decile === last) return;
  last = decile;
  console.error(`${((Date.now() - started) / 1000).toFixed(1)} s: ${Math.round(p.fraction * 100)}% (${p.stage}, ${p.part}, pass ${p.pass} of ${p.passes})`);
});
const used = process.cpuUsage(cpu);
console.log(
  `${examples.length} samples, 30 intents: wall ${((Date.now() - started) / 1000).toFixed(1)} s, CPU ${((used.user + used.system) / 1e6).toFixed(1)} s, ` +
    `model document ${(JSON.stringify(document).length / 1024).toFixed(0)} KiB, resident ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
);
