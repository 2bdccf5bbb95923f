/**
 * The line recogniser (models/line-recogniser) alone and beside Tesseract, on value lines cut from real card photos
 * (a folder with a truth.jsonl, by default the shared development set). Each front is read by the pipeline; at its
 * name stage the one-line fields' lines (name, id, date of birth, expiry) are cut from the flat card as the name
 * stage cuts the name's (name-line.ts), in memory only, and read by the network and by Tesseract (the crop alone,
 * prepared as the pipeline prepares a band, one line: psm 7). Per field: exact values and character accuracy
 * (1 - edit distance / printed length, over all lines). For the name also the pipeline's answer without the
 * network (Tesseract's readings voted), with it (combineName, each way of taking marks), and how many of each
 * were answered at `_prob` >= 80 and wrong. Only file names are printed, never a value.
 *
 *   npx tsx eval/reader/line-recogniser.ts [--real DIR] [--engine auto|native|js] [--misses]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LAYOUTS, type CardKind, type IdCardField } from '../../src/reader/layouts.js';
import { fieldProbability } from '../../src/reader/pipeline/confidence.js';
import { stackBands } from '../../src/reader/pipeline/crops.js';
import { digitLineBox } from '../../src/reader/pipeline/digits.js';
import { nameOf, normaliseDate, normaliseFields, normaliseName } from '../../src/reader/pipeline/fields.js';
import { OnnxLineRecogniser } from '../../src/reader/pipeline/line-recogniser.js';
import { combineName } from '../../src/reader/pipeline/name-line.js';
import { chooseOcrEngine } from '../../src/reader/pipeline/ocr.js';
import { DEFAULT_FIELD_SCALE, readCard, type NameStageView } from '../../src/reader/pipeline/run.js';
import { levenshtein } from '../../src/reader/pipeline/text.js';
import { setImageThreads } from '../../src/platform/vision/image-threads.js';
import { loadConfig } from '../../src/platform/config.js';
import { readTruthFile } from './score.js';

setImageThreads(loadConfig().imageThreads);

const { values } = parseArgs({
  options: {
    real: { type: 'string', default: path.resolve('..', 'shared', 'data', 'iddocs-dev') },
    engine: { type: 'string', default: 'auto' },
    misses: { type: 'boolean', default: false },
  },
});
const dir = values.real!;
if (!fs.existsSync(path.join(dir, 'truth.jsonl'))) throw new Error(`no truth.jsonl in ${dir} (--real DIR)`);
const ocr = chooseOcrEngine(values.engine as 'auto' | 'native' | 'js');
const network = new OnnxLineRecogniser();

const FIELDS: IdCardField[] = ['name', 'id', 'dob', 'doe'];
/** A reading as the answer would spell it, for comparison with the printed value. */
function canonical(field: IdCardField, text: string): string {
  if (field === 'name') return normaliseName(text);
  if (field === 'id') return text.replace(/\D/g, '');
  return normaliseDate(text) ?? text.replace(/\s+/g, '');
}

type Tally = { lines: number; exact: number; errors: number; chars: number };
const tally = (): Tally => ({ lines: 0, exact: 0, errors: 0, chars: 0 });
const alone: Record<'tesseract' | 'network', Partial<Record<IdCardField, Tally>>> = { tesseract: {}, network: {} };
const truthLines: Partial<Record<IdCardField, number>> = {};
const names = { cards: 0, without: 0, withNetMarks: 0, withTesseractMarks: 0, agreed: 0, agreedRight: 0, sureWrongWithout: 0, sureWrongWith: 0 };
const misses: string[] = [];

function score(t: Tally, got: string, want: string): boolean {
  t.lines++;
  t.chars += want.length;
  t.errors += Math.min(want.length, levenshtein(got, want));
  if (got === want) t.exact++;
  return got === want;
}

for (const e of readTruthFile(dir)) {
  if (!(e.kind in LAYOUTS)) continue;
  const layout = LAYOUTS[e.kind as CardKind];
  const fields = FIELDS.filter((f) => layout.fields.includes(f) && e.fields[f]);
  if (fields.length === 0) continue;
  for (const f of fields) truthLines[f] = (truthLines[f] ?? 0) + 1;
  let view: NameStageView | undefined;
  const image = fs.readFileSync(path.join(dir, e.file));
  const r = await readCard({ image, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr, { lineRecogniser: network, onNameStage: (v) => (view = v) });
  if (!view) {
    if (values.misses) misses.push(`${e.file}: no name stage`);
    continue;
  }
  const v = view as NameStageView;
  for (const f of fields) {
    const anchored = v.anchored[f];
    if (!anchored || anchored.lineBoxes.length === 0) continue;
    const box = digitLineBox(anchored, v.lines);
    const want = canonical(f, e.fields[f]);
    const [net] = await network.readLines(v.gray, 1000, 630, [box]);
    const stack = await stackBands(v.gray, [box], DEFAULT_FIELD_SCALE);
    const words = await ocr.recognize(stack.image, { lang: 'vie', psm: 7 });
    const tess = words.map((w) => w.text).join(' ');
    const okT = score((alone.tesseract[f] ??= tally()), canonical(f, tess), want);
    const okN = score((alone.network[f] ??= tally()), canonical(f, net.text), want);
    if (values.misses && okT !== okN) misses.push(`${e.file} ${f}: ${okN ? 'network' : 'tesseract'} alone right`);
  }
  if (fields.includes('name')) {
    names.cards++;
    const want = normaliseName(e.fields.name);
    const without = nameOf(v.tesseract.name);
    const rightWithout = without === want;
    names.without += Number(rightWithout);
    const withNet = combineName(v.tesseract.name, v.network, 'network');
    const withTess = combineName(v.tesseract.name, v.network, 'tesseract');
    names.withNetMarks += Number(nameOf(withNet.name) === want);
    names.withTesseractMarks += Number(nameOf(withTess.name) === want);
    if (withNet.agreed) {
      names.agreed++;
      names.agreedRight += Number(rightWithout);
    }
    const probWithout = v.tesseract.name ? fieldProbability(normaliseFields(layout, v.tesseract).fields.name ?? { value: '', conf: 0 }) : 0;
    if (!rightWithout && probWithout >= 80) names.sureWrongWithout++;
    const answered = r.ok ? r.fields.name : undefined;
    if (answered && answered.value !== want && answered.prob >= 80) names.sureWrongWith++;
    const rightWith = nameOf(withNet.name) === want;
    if (values.misses && rightWith !== rightWithout) misses.push(`${e.file} name: right ${rightWith ? 'only with' : 'only without'} the network`);
  }
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
console.log(`\nLine crops from ${dir} (kinds with the field printed; a line is cut only where the pipeline placed the field)\n`);
console.log('| field | printed | lines cut | Tesseract exact | network exact | Tesseract char acc. | network char acc. |');
console.log('|---|---|---|---|---|---|---|');
for (const f of FIELDS) {
  const t = alone.tesseract[f] ?? tally();
  const n = alone.network[f] ?? tally();
  console.log(
    `| ${f} | ${truthLines[f] ?? 0} | ${t.lines} | ${t.exact} (${pct(t.exact, t.lines)}) | ${n.exact} (${pct(n.exact, n.lines)}) | ${pct(t.chars - t.errors, t.chars)} | ${pct(n.chars - n.errors, n.chars)} |`,
  );
}
console.log(`\nNames in the pipeline (${names.cards} fronts with a name printed and read to the name stage)\n`);
console.log('| answer | exact names | wrong at _prob >= 80 |');
console.log('|---|---|---|');
console.log(`| Tesseract's readings only | ${names.without} | ${names.sureWrongWithout} |`);
console.log(`| combined, network's marks | ${names.withNetMarks} | ${names.sureWrongWith} |`);
console.log(`| combined, Tesseract's marks | ${names.withTesseractMarks} | - |`);
console.log(`\nThe two readers agreed on ${names.agreed} names, ${names.agreedRight} of them right.`);
if (values.misses) for (const m of misses) console.log(m);
await ocr.close();
