/**
 * `npx tsx eval/nlu/multi.ts [--seeds 20261125,777001] [--runs 3] '<json list of {name, options}>'`: intent
 * accuracy and entity F1 (written / no diacritics / slang+typos) of each option set, averaged over data seeds and
 * training seeds (the tagger's dropout and the order of its passes move single runs by a point or more), with
 * the spread of the runs. The development seeds by default.
 */
import { generateDataset } from '../../fixtures/nlu/dataset.js';
import { spanMetrics } from '../../src/nlu/engine/metrics.js';
import { NluModel, trainModel, type TrainOptions } from '../../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../../src/nlu/engine/system-entities.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const seeds = (arg('--seeds') ?? '20261125,777001').split(',').map(Number);
const runs = Number(arg('--runs') ?? 3);
const configs = JSON.parse(process.argv[process.argv.length - 1]!) as { name: string; options: Partial<TrainOptions> }[];
const variants = ['written', 'noMarks', 'noisy'] as const;
const ref = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };

const datasets = seeds.map((seed) => {
  const data = generateDataset({ perIntent: 67, testPerIntent: 20, seed });
  const definitions = definitionsOf(data.entities);
  const labels = new Set(definitions.map((d) => d.label));
  const examples = data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) }));
  return { seed, data, definitions, labels, examples };
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const c of configs) {
  const intent: number[][] = variants.map(() => []);
  const entity: number[][] = variants.map(() => []);
  for (const d of datasets) {
    for (let r = 0; r < runs; r++) {
      const model = new NluModel(
        trainModel({ examples: d.examples, entities: d.definitions, parts: { intent: true, entity: true }, options: { holdout: 0, ...c.options, seed: d.seed + r } }),
      );
      variants.forEach((variant, v) => {
        const test = d.data.test[variant];
        let right = 0;
        const gold: { entity: string; start: number; end: number }[][] = [];
        const found: { entity: string; start: number; end: number }[][] = [];
        for (const s of test) {
          const p = model.predict(s.text, ref, { intent: true, entity: true });
          if (p.intents?.[0]?.label === s.intent) right++;
          gold.push(s.entities.filter((e) => d.labels.has(e.entity)).map((e) => ({ entity: e.entity, start: e.start, end: e.end })));
          found.push((p.entities ?? []).filter((e) => d.labels.has(e.entity)).map((e) => ({ entity: e.entity, start: e.start, end: e.end })));
        }
        intent[v]!.push(right / test.length);
        entity[v]!.push(spanMetrics(gold, found).f1);
      });
    }
  }
  const cell = (xs: number[]) => `${mean(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)})`;
  console.log(`${c.name.padEnd(28)} intent ${intent.map(cell).join(' / ')}`);
  console.log(`${''.padEnd(28)} entity ${entity.map(cell).join(' / ')}`);
}
