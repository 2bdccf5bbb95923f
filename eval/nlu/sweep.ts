/**
 * `npx tsx eval/nlu/sweep.ts [--seed N] '<json list of {name, options}>'`: intent
 * accuracy only (written / no diacritics / slang+typos / out-of-vocabulary),
 * wrong answers at confidence >= 0.5, and the intent half's train CPU, for
 * each option set: the quick loop behind the comparison in docs/nlu.md.
 * The entity half is trained too: free-text masks at prediction come from its tagger.
 */
import { generateDataset } from '../../fixtures/nlu/dataset.js';
import { NluModel, trainModel, type TrainOptions } from '../../src/nlu/engine/model.js';
import { definitionsOf } from '../../fixtures/nlu/definitions.js';

const seedAt = process.argv.indexOf('--seed');
const seed = seedAt > 0 ? Number(process.argv[seedAt + 1]) : 20261125;
const configs = JSON.parse(process.argv[process.argv.length - 1]!) as { name: string; options: Partial<TrainOptions> }[];
const data = generateDataset({ perIntent: 67, testPerIntent: 20, seed });
const definitions = definitionsOf(data.entities);
const examples = data.train.map((s) => ({ text: s.text, intent: s.intent, entities: s.entities.map((e) => ({ entity: e.entity, start: e.start, end: e.end })) }));
for (const c of configs) {
  const c0 = process.cpuUsage();
  const model = new NluModel(trainModel({ examples, entities: definitions, parts: { intent: true, entity: true }, options: { holdout: 0, seed, ...c.options } }));
  const cpu = process.cpuUsage(c0);
  const cells: string[] = [];
  let confidentWrong = 0;
  // Reliability: per confidence band of the top answer, how many and how many right.
  const bands = [0, 0.3, 0.5, 0.7, 0.9];
  const inBand = bands.map(() => ({ n: 0, right: 0 }));
  let answered = 0;
  let total = 0;
  for (const variant of ['written', 'noMarks', 'noisy', 'outOfVocabulary'] as const) {
    let right = 0;
    for (const s of data.test[variant]) {
      const top = model.intents(s.text, 1)[0];
      if (top?.label === s.intent) right++;
      if (variant !== 'outOfVocabulary') {
        total++;
        if ((top?.confidence ?? 0) >= 0.3) answered++;
        if (top && top.label !== s.intent && top.confidence >= 0.5) confidentWrong++;
        if (top) {
          let at = 0;
          while (at + 1 < bands.length && top.confidence >= bands[at + 1]!) at++;
          const band = inBand[at]!;
          band.n++;
          if (top.label === s.intent) band.right++;
        }
      }
    }
    cells.push((right / data.test[variant].length).toFixed(3));
  }
  console.log(
    `${c.name.padEnd(40)} ${cells.join(' / ')} | answered@0.3 ${(answered / total).toFixed(2)} wrong@0.5 ${(confidentWrong / total).toFixed(3)} | train CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
  );
  console.log(
    `${''.padEnd(40)} confidence bands: ${bands.map((b, i) => `>=${b}: ${inBand[i]!.n} (${(inBand[i]!.right / Math.max(1, inBand[i]!.n)).toFixed(2)} right)`).join(', ')}`,
  );
}
