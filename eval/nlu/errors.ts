/**
 * `npx tsx eval/nlu/errors.ts [--seed N] [--variant written|noMarks|noisy]`: the
 * intent errors of the default model on the generated development set, the
 * confused pairs counted and each wrong sentence with its top-2 confidences,
 * to see why a phrasing goes to a neighbour before changing the model.
 */
import { generateDataset } from '../../fixtures/nlu/dataset.js';
import { NluModel, trainModel, type TrainOptions } from '../../src/nlu/engine/model.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const seed = Number(arg('--seed') ?? 20261125);
const variant = (arg('--variant') ?? 'written') as 'written' | 'noMarks' | 'noisy';
const options: Partial<TrainOptions> = JSON.parse(arg('--options') ?? '{}');
const data = generateDataset({ perIntent: 67, testPerIntent: 20, seed });
const definitions = definitionsOf(data.entities);
const model = new NluModel(
  trainModel({
    examples: data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) })),
    entities: definitions,
    parts: { intent: true, entity: true },
    options: { holdout: 0, seed, ...options },
  }),
);
const pairs = new Map<string, number>();
const wrong: string[] = [];
let right = 0;
let confidentWrong = 0;
for (const s of data.test[variant]) {
  const [first, second] = model.intents(s.text, 2);
  if (first?.label === s.intent) {
    right++;
    continue;
  }
  if ((first?.confidence ?? 0) >= 0.5) confidentWrong++;
  const key = `${s.intent} -> ${first?.label}`;
  pairs.set(key, (pairs.get(key) ?? 0) + 1);
  wrong.push(`${s.intent} -> ${first?.label} ${first?.confidence} (${second?.label} ${second?.confidence}): ${s.text}`);
}
console.log(`${variant}: accuracy ${(right / data.test[variant].length).toFixed(3)}, wrong at confidence >= 0.5: ${confidentWrong}`);
for (const [k, n] of [...pairs].sort((a, b) => b[1] - a[1])) console.log(`${n}\t${k}`);
for (const w of wrong.sort()) console.log(w);

// `--explain`: for the first sentence of each confused pair, the features that pushed it most towards the wrong intent.
if (process.argv.includes('--explain')) {
  const { prepare } = await import('../../src/nlu/engine/text.js');
  const { intentFeatures, viewedFeatures } = await import('../../src/nlu/engine/model.js');
  const { systemEntities, VIETNAM_OFFSET_MINUTES } = await import('../../src/nlu/engine/system-entities.js');
  const { KeywordDictionary } = await import('../../src/nlu/engine/dictionary.js');
  const { featureValues } = await import('../../src/nlu/engine/linear.js');
  const intent = model.data.intent!;
  const labels = intent.labels;
  const vocab = new Map(intent.vocabulary.map((f, i) => [f, i]));
  const dictionary = intent.keywords.length > 0 ? new KeywordDictionary(intent.keywords) : undefined;
  const decode = (b64: string) => new Float32Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
  const weights = decode(intent.weights);
  const fw = intent.featureWeights ? decode(intent.featureWeights) : undefined;
  const k = labels.length;
  const done = new Set<string>();
  for (const s of data.test[variant]) {
    const first = model.intents(s.text, 1)[0];
    if (!first || first.label === s.intent) continue;
    const key = `${s.intent} -> ${first.label}`;
    if (done.has(key)) continue;
    done.add(key);
    const text = prepare(s.text);
    const freeText = model.freeTextMasks(text, systemEntities(text, { now: new Date(0), offsetMinutes: VIETNAM_OFFSET_MINUTES }));
    const strings = viewedFeatures(
      text,
      intentFeatures(text, dictionary, undefined, freeText, (f) => vocab.has(f)),
    );
    const known = strings.filter((f) => vocab.has(f));
    const ids = known.map((f) => vocab.get(f)!);
    const values = featureValues(ids, fw);
    const g = labels.indexOf(s.intent);
    const w = labels.indexOf(first.label);
    const parts = known.map((f, i) => ({ f, d: values[i]! * (weights[ids[i]! * k + w]! - weights[ids[i]! * k + g]!) })).sort((a, b) => b.d - a.d);
    console.log(`\n${key}: ${s.text}  (${known.length}/${strings.length} known; free-text masks: ${freeText.map((m) => m.entity).join(', ') || 'none'})`);
    console.log(
      '  for wrong: ' +
        parts
          .slice(0, 8)
          .map((p) => `${p.f} ${p.d.toFixed(2)}`)
          .join(', '),
    );
    console.log(
      '  for gold:  ' +
        parts
          .slice(-6)
          .reverse()
          .map((p) => `${p.f} ${p.d.toFixed(2)}`)
          .join(', '),
    );
  }
}
