/**
 * `npx tsx eval/nlu/report.ts [--samples N] [--intents N] [--seed N]`: the CPU a model's cross-validated report
 * costs (what the nlu-report job runs after a training), next to the training itself, on a generated set
 * (2,000 samples of 30 intents by default, with their entity tags and definitions).
 */
import { generateDataset } from '../../fixtures/nlu/dataset.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';
import { trainModel, type TrainRequest } from '../../src/nlu/engine/model.js';
import { crossValidate, REPORT_FOLDS } from '../../src/nlu/engine/report.js';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const samples = arg('--samples', 2000);
const intents = arg('--intents', 30);
const seed = arg('--seed', 20261125);
const data = generateDataset({ perIntent: Math.ceil(samples / intents), testPerIntent: 0, seed, intents });
const request: TrainRequest = {
  examples: data.train
    .slice(0, samples)
    .map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) })),
  entities: definitionsOf(data.entities),
  parts: { intent: true, entity: true },
};

function cpuSeconds<T>(work: () => T): [T, number] {
  const start = process.cpuUsage();
  const out = work();
  const used = process.cpuUsage(start);
  return [out, (used.user + used.system) / 1e6];
}

const [, training] = cpuSeconds(() => trainModel(request));
const [report, reporting] = cpuSeconds(() => crossValidate(request));
console.log(`${request.examples.length} samples, ${new Set(request.examples.map((e) => e.intent)).size} intents, ${request.entities.length} entities`);
console.log(`training: ${training.toFixed(1)} s CPU`);
console.log(`${REPORT_FOLDS}-fold report: ${reporting.toFixed(1)} s CPU`);
console.log(`report: intent accuracy ${report.intents.accuracy}, macro F1 ${report.intents.macro_f1}, entity F1 ${report.entities.micro.f1}`);
