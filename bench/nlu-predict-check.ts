/**
 * `npx tsx bench/nlu-predict-check.ts --write FILE` records what the engine answers; `--compare FILE` checks
 * that the engine answers the same now (speed work must not change an answer). Two models (the eval's
 * 20-intent model with the generated set's entities, and the HTTP bench's intent-only model) predict the
 * generated test sentences (as written, without diacritics, with slang and typos) and some edge cases: every
 * intent's unrounded confidence (equal within 1e-12), the API's answer (`predict`, both halves) exactly.
 * `--limit N`: the first N sentences of each variant (all by default).
 */
import fs from 'node:fs';
import { generateDataset, type GeneratedSample } from './nlu-dataset.js';
import { NluModel, trainModel } from '../src/nlu/model/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../src/nlu/model/system-entities.js';
import { definitionsOf } from './support/nlu-definitions.js';

const SEED = 20261125;
// A fixed "now", so dates resolve the same in both runs.
const REF = { now: new Date('2026-03-14T02:30:00Z'), offsetMinutes: VIETNAM_OFFSET_MINUTES };
const TOLERANCE = 1e-12;

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const examples = (samples: GeneratedSample[], withEntities: boolean) =>
  samples.map((s) => ({ text: s.text, intent: s.intent, entities: withEntities ? s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) : [] }));

interface Answer {
  model: string;
  text: string;
  confidences: { label: string; confidence: number }[];
  predicted: unknown;
}

function answers(): Answer[] {
  const limit = Number(argument('--limit') ?? Infinity);
  const twenty = generateDataset({ perIntent: 67, testPerIntent: 20, seed: SEED + 1, intents: 20 });
  const full = new NluModel(
    trainModel({ examples: examples(twenty.train, true), entities: definitionsOf(twenty.entities), parts: { intent: true, entity: true }, options: { holdout: 0 } }),
  );
  const httpSet = generateDataset({ perIntent: 30, testPerIntent: 1, seed: 7, intents: 20 });
  const intentOnly = new NluModel(trainModel({ examples: examples(httpSet.train, false), entities: [], parts: { intent: true, entity: true } }));
  const edges = [
    '',
    '  ',
    '?!',
    'cho mình chuyển 500 nghìn cho chị Lan lúc 9 giờ sáng mai nhé',
    '500k 2tr5 15/8 9h30 ba mươi phần trăm',
    'chuyển 😀 tiền 𝒳 nhé',
    'chuyển tiền'.normalize('NFD'),
    'CHUYỂN TIỀN CHO MẸ',
  ];
  const variants = [twenty.test.written, twenty.test.noMarks, twenty.test.noisy, twenty.test.outOfVocabulary];
  const texts = [...variants.flatMap((v) => v.slice(0, limit).map((s) => s.text)), ...edges];
  const out: Answer[] = [];
  for (const [name, model] of [
    ['20 intents + entities', full],
    ['HTTP bench model', intentOnly],
  ] as const) {
    for (const text of texts) {
      out.push({ model: name, text, confidences: model.rankedIntents(text), predicted: model.predict(text, REF, { intent: true, entity: true }) });
    }
  }
  return out;
}

function compare(before: Answer[], after: Answer[]): string[] {
  const problems: string[] = [];
  if (before.length !== after.length) return [`${before.length} answers recorded, ${after.length} now`];
  let worst = 0;
  before.forEach((b, i) => {
    const a = after[i]!;
    const where = `${b.model}: "${b.text}"`;
    if (a.text !== b.text) problems.push(`${where}: now "${a.text}"`);
    if (JSON.stringify(a.predicted) !== JSON.stringify(b.predicted)) problems.push(`${where}: answer ${JSON.stringify(b.predicted)} -> ${JSON.stringify(a.predicted)}`);
    if (a.confidences.length !== b.confidences.length) problems.push(`${where}: ${b.confidences.length} intents -> ${a.confidences.length}`);
    b.confidences.forEach((c, k) => {
      const d = a.confidences[k];
      if (!d || d.label !== c.label) problems.push(`${where}: rank ${k} ${c.label} -> ${d?.label}`);
      else worst = Math.max(worst, Math.abs(d.confidence - c.confidence));
    });
  });
  if (worst > TOLERANCE) problems.push(`largest confidence difference ${worst}`);
  console.log(`${before.length} answers compared; largest confidence difference ${worst}`);
  return problems;
}

const writeTo = argument('--write');
const compareTo = argument('--compare');
if (!writeTo && !compareTo) throw new Error('--write FILE or --compare FILE');
const now = answers();
if (writeTo) {
  fs.writeFileSync(writeTo, JSON.stringify(now));
  console.log(`${now.length} answers written to ${writeTo}`);
}
if (compareTo) {
  const problems = compare(JSON.parse(fs.readFileSync(compareTo, 'utf8')) as Answer[], now);
  for (const p of problems.slice(0, 20)) console.log(p);
  if (problems.length > 0) {
    console.log(`${problems.length} differences`);
    process.exitCode = 1;
  } else console.log('identical');
}
