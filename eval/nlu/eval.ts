/**
 * `npm run eval:nlu`: what the NLU engine (src/nlu/engine) is worth.
 *   1. Generated five-domain dataset (fixtures/nlu/dataset.ts): train on the
 *      training templates, test on paraphrase templates never trained on,
 *      as written, without diacritics, and with slang and typos (and apart,
 *      the paraphrases that share no distinctive word with training). Intent
 *      accuracy, macro F1, coverage at the default threshold, entity
 *      exact-span F1 (the application's entities).
 *   2. The same for each candidate training option (the classifier's
 *      regularisation and step, the entity tagger's decoder and dropout).
 *   3. Train time (CPU) for 2,000 samples / 30 intents; predict latency (p50,
 *      p95) in process for a 20-intent model.
 *   `--real DIR`: also measure on DIR/data.jsonl, lines of
 *   {text, intent, entities: [{entity, value, start, end}], split: "train"|"test"}
 *   (`--only-real`: that alone). `--seed N`: other samples of the same
 *   templates; `--final`: the final paraphrase templates (measured once);
 *   `--quick`: candidates only; `--candidates 3,5`: those candidates.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printTable, type BenchRow } from '../../bench/harness.js';
import { generateDataset, type GeneratedSample } from '../../fixtures/nlu/dataset.js';
import { classificationMetrics, spanMetrics } from '../../src/nlu/engine/metrics.js';
import { DEFAULT_TRAIN_OPTIONS, NluModel, trainModel, type EntityDefinition, type TrainOptions, type TrainingExample } from '../../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../../src/nlu/engine/system-entities.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';
import { BENCH_SENTENCE } from '../../fixtures/nlu/bench-model.js';

// The development seed; `--seed N` draws other samples of the same templates, `--final` tests on the final paraphrase templates.
const seedAt = process.argv.indexOf('--seed');
const SEED = seedAt > 0 ? Number(process.argv[seedAt + 1]) : 20261125;
const FINAL = process.argv.includes('--final');
const ref = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };

function toExamples(samples: GeneratedSample[]): TrainingExample[] {
  return samples.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) }));
}

interface Score {
  accuracy: number;
  macroF1: number;
  entityF1: number;
  /** At the API's default threshold (0.3): the part answered, and the accuracy of those answers. */
  answered: number;
  answeredAccuracy: number;
}

const THRESHOLD = 0.3;

function score(model: NluModel, test: GeneratedSample[], labels: Set<string>): Score {
  const top = test.map((s) => model.intents(s.text, 1)[0]);
  const predicted = top.map((t) => t?.label);
  const kept = test.map((s, i) => ({ gold: s.intent, top: top[i] })).filter((x) => x.top && x.top.confidence >= THRESHOLD);
  const m = classificationMetrics(
    test.map((s) => s.intent),
    predicted,
  );
  const withSpans = test.filter((s) => s.entities.length > 0);
  const spans = spanMetrics(
    withSpans.map((s) => s.entities),
    withSpans.map((s) => model.extract(s.text, ref).filter((e) => labels.has(e.entity))),
  );
  return {
    accuracy: m.accuracy,
    macroF1: m.f1,
    entityF1: spans.f1,
    answered: kept.length / Math.max(1, test.length),
    answeredAccuracy: kept.filter((x) => x.top!.label === x.gold).length / Math.max(1, kept.length),
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function cpuSeconds(work: () => void): { cpu: number; wall: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  work();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1e6, wall: (performance.now() - t0) / 1000 };
}

const rows: BenchRow[] = [];
const add = (benchmark: string, metric: string, value: number, unit: string, goal?: string, note?: string) =>
  rows.push({ benchmark, metric, value: Math.round(value * 1000) / 1000, unit, goal, note });

const onlyReal = process.argv.includes('--only-real');
// `--quick`: the candidates only (no in-distribution rows, no latency).
const quick = process.argv.includes('--quick');
// `--latency`: the predict latency rows only.
const latencyOnly = process.argv.includes('--latency');
// 1-2. The generated set, every candidate.
const data = generateDataset({ perIntent: 67, testPerIntent: 20, seed: SEED, final: FINAL });
const definitions = definitionsOf(data.entities);
const labels = new Set(Object.keys(data.entities));
const examples = toExamples(data.train);
// The engine has one feature set and one classifier; what is left to compare is how they are trained.
const candidates: { name: string; options: Partial<TrainOptions>; entities?: boolean }[] = [
  { name: 'softmax, step 0.2, L2 2e-4', options: {} },
  { name: 'softmax, step 0.2, L2 1e-4', options: { linear: { l2: 1e-4 } } },
  { name: 'softmax, step 0.5, L2 1e-5', options: { linear: { l2: 1e-5, learningRate: 0.5 } } },
  // The entity tagger's options, with the default intent model (the intent features read the tagger's spans).
  {
    name: 'default, tagger greedy, no word dropout',
    options: { taggerDecoder: 'greedy', taggerWordDropout: 0, taggerValueDropout: 0 },
    entities: true,
  },
  { name: 'default, tagger Viterbi, no word dropout', options: { taggerWordDropout: 0, taggerValueDropout: 0 }, entities: true },
  { name: 'default, tagger greedy, word dropout 0.3 / values 0.7', options: { taggerDecoder: 'greedy' }, entities: true },
];
// `--candidates 1,5`: only those (1-based), while iterating.
const only = process.argv.indexOf('--candidates');
if (only > 0) {
  const wanted = new Set(process.argv[only + 1]!.split(',').map(Number));
  candidates.splice(0, candidates.length, ...candidates.filter((_, i) => wanted.has(i + 1)));
}
if (!onlyReal)
  console.log(
    `generated (seed ${SEED}, ${FINAL ? 'final' : 'development'} paraphrases): ${data.train.length} training samples, ${new Set(data.train.map((s) => s.intent)).size} intents, ${data.test.written.length} test paraphrases per variant`,
  );
for (const c of onlyReal || latencyOnly ? [] : candidates) {
  const options: Partial<TrainOptions> = { ...c.options, holdout: 0, seed: SEED };
  let model: NluModel | undefined;
  const time = cpuSeconds(() => {
    model = new NluModel(trainModel({ examples, entities: definitions, parts: { intent: true, entity: true }, options }));
  });
  const merged = { ...DEFAULT_TRAIN_OPTIONS, ...c.options };
  const isDefault =
    (['taggerDecoder', 'taggerWordDropout', 'taggerValueDropout', 'taggerEpochs'] as const).every((k) => (merged[k] ?? false) === (DEFAULT_TRAIN_OPTIONS[k] ?? false)) &&
    merged.linear === undefined;
  const name = isDefault ? `${c.name} (default)` : c.name;
  const written = score(model!, data.test.written, labels);
  const noMarks = score(model!, data.test.noMarks, labels);
  const noisy = score(model!, data.test.noisy, labels);
  add(name, 'intent accuracy, written', written.accuracy, '', '>= 0.90');
  add(name, 'intent accuracy, no diacritics', noMarks.accuracy, '', '>= 0.85');
  add(name, 'intent accuracy, slang+typos', noisy.accuracy, '');
  add(
    name,
    'intent accuracy, out-of-vocabulary paraphrases',
    score(model!, data.test.outOfVocabulary, labels).accuracy,
    '',
    undefined,
    'no distinctive word shared with training',
  );
  add(name, 'intent macro F1, written', written.macroF1, '');
  add(name, `written: answered at threshold ${THRESHOLD} / accuracy of those`, written.answered, '', undefined, `accuracy ${written.answeredAccuracy.toFixed(2)}`);
  add(name, 'intent macro F1, no diacritics', noMarks.macroF1, '');
  // The entity extractor does not depend on the classifier: its rows with the default and the tagger's candidates.
  if (isDefault || c.entities) {
    const who = isDefault ? 'entities (any classifier, default tagger)' : name;
    add(who, 'entity F1, written', written.entityF1, '', '>= 0.85', 'exact spans, application entities');
    add(who, 'entity F1, no diacritics', noMarks.entityF1, '');
    add(who, 'entity F1, slang+typos', noisy.entityF1, '', undefined, 'noise only outside entity values');
  }
  add(name, 'train CPU (intents + entities)', time.cpu, 's', '<= 10', `${examples.length} samples, 30 intents`);
}

// In-distribution, for contrast: the API's own held-out split (20% of each intent's samples, same templates).
if (!onlyReal && !quick && !latencyOnly) {
  let data0!: ReturnType<typeof trainModel>;
  const time = cpuSeconds(() => {
    data0 = trainModel({ examples, entities: definitions, parts: { intent: true, entity: true }, options: { seed: SEED } });
  });
  add('default model', 'train CPU as the API trains (measure on 80%, then train on all)', time.cpu, 's', '<= 10', `${examples.length} samples, 30 intents`);
  add(
    'default model',
    'intent accuracy, held-out samples of the training templates',
    data0.metrics.intent?.accuracy ?? 0,
    '',
    undefined,
    `${data0.metrics.intent?.test_size} samples`,
  );
  add('default model', 'entity F1, held-out samples of the training templates', data0.metrics.entity?.f1 ?? 0, '');
}

// 3. Predict latency, 20 intents, the default model: with the generated set's entities, and as the HTTP bench
// trains it (intent samples only, so system entities and no tagger), on its sentence.
if (!onlyReal && !quick) {
  const twenty = generateDataset({ perIntent: 67, testPerIntent: 20, seed: SEED + 1, intents: 20 });
  const model = new NluModel(trainModel({ examples: toExamples(twenty.train), entities: definitions, parts: { intent: true, entity: true }, options: { holdout: 0 } }));
  const texts = [...twenty.test.written, ...twenty.test.noisy].map((s) => s.text);
  const httpSet = generateDataset({ perIntent: 30, testPerIntent: 1, seed: 7, intents: 20 });
  const httpModel = new NluModel(
    trainModel({ examples: httpSet.train.map((s) => ({ text: s.text, intent: s.intent, entities: [] })), entities: [], parts: { intent: true, entity: true } }),
  );
  const httpText = BENCH_SENTENCE;
  const measure = (m: NluModel, list: string[], rounds: number) => {
    // Warm-up.
    for (const t of list.slice(0, 50)) m.predict(t, ref, { intent: true, entity: true });
    for (let i = 0; i < 200; i++) m.predict(list[i % list.length]!, ref, { intent: true, entity: true });
    const times: number[] = [];
    const cpu = cpuSeconds(() => {
      for (let round = 0; round < rounds; round++) {
        for (const t of list) {
          const t0 = performance.now();
          m.predict(t, ref, { intent: true, entity: true });
          times.push(performance.now() - t0);
        }
      }
    });
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), p99: percentile(times, 0.99), cpuUs: (1e6 * cpu.cpu) / times.length };
  };
  const own = measure(model, texts, 5);
  const load = `load avg ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`;
  add('default model, 20 intents', 'predict p50 (intents + entities)', own.p50, 'ms', '<= 2', `${texts.length} test sentences x 5`);
  add('default model, 20 intents', 'predict p95', own.p95, 'ms');
  add('default model, 20 intents', 'predict p99', own.p99, 'ms');
  add('default model, 20 intents', 'predict CPU', own.cpuUs, 'µs', undefined, load);
  const http = measure(httpModel, [httpText], 3000);
  add('HTTP bench model (20 intents, no entities)', 'predict p50, its sentence', http.p50, 'ms');
  add('HTTP bench model (20 intents, no entities)', 'predict p99', http.p99, 'ms');
  add('HTTP bench model (20 intents, no entities)', 'predict CPU', http.cpuUs, 'µs', undefined, load);
  const bytes = JSON.stringify(model.data).length;
  add('default model, 20 intents', 'model document', bytes / 1024, 'KiB');
}

// --real DIR
const realAt = process.argv.indexOf('--real');
if (realAt > 0) {
  const dir = process.argv[realAt + 1];
  if (!dir) throw new Error('--real needs a directory holding data.jsonl');
  const lines = fs
    .readFileSync(path.join(dir, 'data.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const samples = lines.map((l) => JSON.parse(l) as GeneratedSample & { split?: string });
  const trainSet = samples.filter((s) => s.split !== 'test');
  const testSet = samples.filter((s) => s.split === 'test');
  const realLabels = new Set(samples.flatMap((s) => (s.entities ?? []).map((e) => e.entity)));
  // Without a declaration, an operator's entity is taken as keyword and free text (type 1).
  const realDefs: EntityDefinition[] = [...realLabels].map((label) => ({ label, type: 1 }));
  let model: NluModel | undefined;
  const time = cpuSeconds(() => {
    model = new NluModel(
      trainModel({
        examples: toExamples(trainSet.map((s) => ({ ...s, entities: s.entities ?? [] }))),
        entities: realDefs,
        parts: { intent: true, entity: true },
        options: { holdout: 0 },
      }),
    );
  });
  const s = score(
    model!,
    testSet.map((x) => ({ ...x, entities: x.entities ?? [] })),
    realLabels,
  );
  add(`real: ${dir}`, 'intent accuracy', s.accuracy, '', undefined, `${trainSet.length} train / ${testSet.length} test`);
  add(`real: ${dir}`, 'intent macro F1', s.macroF1, '');
  add(`real: ${dir}`, 'entity F1', s.entityF1, '');
  add(`real: ${dir}`, 'train CPU', time.cpu, 's');
}

printTable(rows);
