/**
 * `npx tsx eval/nlu/predict-check.ts --write FILE` records what the engine answers; `--compare FILE` checks
 * that the engine answers the same now (speed work or a refactor must not change an answer). The models: the
 * evaluation's (every intent, the generated set's entities) on the development seeds 20261125 and 777001 and
 * on the final paraphrase templates, the 20-intent model of the latency rows, and the HTTP bench's
 * intent-only model. Each predicts its evaluation sentences (as written, without diacritics, with slang and
 * typos, out of vocabulary) and some edge cases: every intent's unrounded confidence (equal within 1e-12),
 * the API's answer (`predict`, intents and entities) exactly, and each trained model document's SHA-256.
 * `--limit N`: the first N sentences of each variant (all by default).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { generateDataset, type GeneratedDataset, type GeneratedSample } from '../../fixtures/nlu/dataset.js';
import { NluModel, trainModel, type TrainOptions } from '../../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../../src/nlu/engine/system-entities.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';

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
  /** SHA-256 of the trained model document (on the model's first answer). */
  document?: string;
  text: string;
  confidences: { label: string; confidence: number }[];
  predicted: unknown;
}

const EDGES = [
  '',
  '  ',
  '?!',
  'cho mình chuyển 500 nghìn cho chị Lan lúc 9 giờ sáng mai nhé',
  '500k 2tr5 15/8 9h30 ba mươi phần trăm',
  'chuyển 😀 tiền 𝒳 nhé',
  'chuyển tiền'.normalize('NFD'),
  'CHUYỂN TIỀN CHO MẸ',
];

/** A model trained on a generated set, and the texts it is checked on: the set's test variants, then the edge cases. */
function checked(name: string, data: GeneratedDataset, withEntities: boolean, options: Partial<TrainOptions>) {
  const limit = Number(argument('--limit') ?? Infinity);
  const document = trainModel({
    examples: examples(data.train, withEntities),
    entities: withEntities ? definitionsOf(data.entities) : [],
    parts: { intent: true, entity: true },
    options,
  });
  const variants = [data.test.written, data.test.noMarks, data.test.noisy, data.test.outOfVocabulary];
  const texts = [...variants.flatMap((v) => v.slice(0, limit).map((s) => s.text)), ...EDGES];
  return { name, model: new NluModel(document), digest: createHash('sha256').update(JSON.stringify(document)).digest('hex'), texts };
}

function answers(): Answer[] {
  const evaluation = (seed: number, final: boolean) => generateDataset({ perIntent: 67, testPerIntent: 20, seed, final });
  const models = [
    checked('20 intents + entities', generateDataset({ perIntent: 67, testPerIntent: 20, seed: SEED + 1, intents: 20 }), true, { holdout: 0 }),
    checked('HTTP bench model', generateDataset({ perIntent: 30, testPerIntent: 1, seed: 7, intents: 20 }), false, {}),
    ...[
      [SEED, false],
      [777001, false],
      [SEED, true],
    ].map(([seed, final]) =>
      checked(`evaluation, seed ${seed}${final ? ', final templates' : ''}`, evaluation(seed as number, final as boolean), true, { holdout: 0, seed: seed as number }),
    ),
  ];
  const out: Answer[] = [];
  for (const { name, model, digest, texts } of models) {
    texts.forEach((text, i) => {
      out.push({
        model: name,
        ...(i === 0 ? { document: digest } : {}),
        text,
        confidences: model.rankedIntents(text),
        predicted: model.predict(text, REF, { intent: true, entity: true }),
      });
    });
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
    if (a.document !== b.document) problems.push(`${b.model}: model document ${b.document} -> ${a.document}`);
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
