/**
 * `npx tsx eval/nlu/entity-errors.ts [--seed N] [--final] [--examples N] [--options JSON]`:
 * the entity half of the default model on the generated set, trained alone
 * (the extractor does not read the intent model), and its misses per entity
 * and variant: exact, boundary (same entity, other span), wrong type
 * (overlapping span of another entity), missed (nothing overlaps), false
 * find (a prediction overlapping no gold span of its entity); and each
 * entity's recall on values the training samples held (seen) and on values
 * they did not (unseen, compared accent-folded and in lower case).
 */
import { generateDataset, type GeneratedSample } from '../../fixtures/nlu/dataset.js';
import { spanMetrics } from '../../src/nlu/engine/metrics.js';
import { NluModel, trainModel, type PredictedEntity, type TrainOptions } from '../../src/nlu/engine/model.js';
import { VIETNAM_OFFSET_MINUTES } from '../../src/nlu/engine/system-entities.js';
import { foldText } from '../../src/nlu/engine/text.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const seed = Number(arg('--seed') ?? 20261125);
const final = process.argv.includes('--final');
const showExamples = Number(arg('--examples') ?? 0);
const options: Partial<TrainOptions> = JSON.parse(arg('--options') ?? '{}');
const ref = { now: new Date(), offsetMinutes: VIETNAM_OFFSET_MINUTES };
const data = generateDataset({ perIntent: 67, testPerIntent: 20, seed, final });
const definitions = definitionsOf(data.entities);
const labels = new Set(definitions.map((d) => d.label));
const kindOf = new Map(definitions.map((d) => [d.label, d.type === 2 ? 'dictionary' : d.type === 1 ? 'dictionary+tagger' : 'tagger']));
const c0 = process.cpuUsage();
const model = new NluModel(
  trainModel({
    examples: data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) })),
    entities: definitions,
    parts: { intent: false, entity: true },
    options: { holdout: 0, seed, ...options },
  }),
);
const c = process.cpuUsage(c0);
console.log(`seed ${seed}${final ? ' final' : ''}: entity half trained in ${((c.user + c.system) / 1e6).toFixed(2)} s CPU`);

type Outcome = 'exact' | 'boundary' | 'wrong type' | 'missed';
const valueKey = (entity: string, value: string) => `${entity}\u0000${foldText(value.toLowerCase()).trim()}`;
const trainedValues = new Set(data.train.flatMap((s) => s.entities.map((e) => valueKey(e.entity, e.value))));
const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

for (const variant of ['written', 'noMarks', 'noisy'] as const) {
  const test: GeneratedSample[] = data.test[variant].filter((s) => s.entities.length > 0);
  const predicted: PredictedEntity[][] = test.map((s) => model.extract(s.text, ref).filter((e) => labels.has(e.entity)));
  const f1 = spanMetrics(
    test.map((s) => s.entities),
    predicted,
  );
  console.log(`\n${variant}: entity F1 ${f1.f1.toFixed(3)} (P ${f1.precision.toFixed(3)}, R ${f1.recall.toFixed(3)}, ${f1.support} spans)`);
  const counts = new Map<string, Record<Outcome | 'false find', number>>();
  /** Per entity: [exact, all] over seen values, then over unseen. */
  const novelty = new Map<string, [number, number, number, number]>();
  const examples: string[] = [];
  const row = (e: string) => {
    if (!counts.has(e)) counts.set(e, { exact: 0, boundary: 0, 'wrong type': 0, missed: 0, 'false find': 0 });
    return counts.get(e)!;
  };
  test.forEach((s, i) => {
    const got = predicted[i]!;
    for (const g of s.entities) {
      let outcome: Outcome = 'missed';
      const hit = got.find((p) => p.entity === g.entity && p.start === g.start && p.end === g.end);
      if (hit) outcome = 'exact';
      else if (got.some((p) => p.entity === g.entity && overlaps(p, g))) outcome = 'boundary';
      else if (got.some((p) => overlaps(p, g))) outcome = 'wrong type';
      row(g.entity)[outcome]++;
      const seen = trainedValues.has(valueKey(g.entity, g.value));
      const n = novelty.get(g.entity) ?? [0, 0, 0, 0];
      n[seen ? 0 : 2] += outcome === 'exact' ? 1 : 0;
      n[seen ? 1 : 3] += 1;
      novelty.set(g.entity, n);
      if (outcome !== 'exact') {
        const near = got.filter((p) => overlaps(p, g)).map((p) => `${p.entity}"${p.value}"`);
        examples.push(`${g.entity} ${outcome}: "${g.value}" -> ${near.join(', ') || '-'} | ${s.text}`);
      }
    }
    for (const p of got) {
      if (!s.entities.some((g) => g.entity === p.entity && overlaps(p, g))) {
        row(p.entity)['false find']++;
        examples.push(`${p.entity} false find: "${p.value}" | ${s.text}`);
      }
    }
  });
  const recall = (hit: number, all: number) => (all ? `${(hit / all).toFixed(2)} (${all})` : '-');
  console.log('entity\tkind\texact\tboundary\twrong type\tmissed\tfalse find\trecall seen\trecall unseen');
  for (const [e, r] of [...counts].sort()) {
    const n = novelty.get(e) ?? [0, 0, 0, 0];
    console.log(`${e}\t${kindOf.get(e)}\t${r.exact}\t${r.boundary}\t${r['wrong type']}\t${r.missed}\t${r['false find']}\t${recall(n[0], n[1])}\t${recall(n[2], n[3])}`);
  }
  const total = [...novelty.values()].reduce((a, n) => [a[0]! + n[0], a[1]! + n[1], a[2]! + n[2], a[3]! + n[3]], [0, 0, 0, 0]);
  console.log(`all\t\t\t\t\t\t\t${recall(total[0]!, total[1]!)}\t${recall(total[2]!, total[3]!)}`);
  for (const line of examples.sort().slice(0, showExamples)) console.log('  ' + line);
}
