/**
 * The line recogniser (models/line-recogniser) alone and beside Tesseract, on value lines cut from real card photos
 * (a folder with a truth.jsonl, by default the shared development set). Each front is read by the pipeline; at its
 * name stage the one-line fields' lines (name, id, date of birth, expiry) are cut from the flat card as the name
 * stage cuts the name's (name-line.ts), and each value line of the places (home, address), in memory only, and
 * read by the network and by Tesseract (the crop alone, prepared as the pipeline prepares a band, one line: psm 7;
 * a place's lines joined). Per field: exact values and character accuracy
 * (1 - edit distance / printed length, over all lines). For the name also the pipeline's answer without the
 * network (Tesseract's readings voted), with it (combineName, each way of taking marks), and how many of each
 * were answered at `_prob` >= 80 right and wrong. Only file names are printed, never a value.
 *
 *   npx tsx eval/reader/line-recogniser.ts [--real DIR] [--engine auto|native|js] [--misses] [--limit N] [--model DIR]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LAYOUTS, type CardKind, type CardLayout, type IdCardField } from '../../src/reader/layouts.js';
import { fieldProbability } from '../../src/reader/pipeline/confidence.js';
import { stackBands } from '../../src/reader/pipeline/crops.js';
import { digitLineBox } from '../../src/reader/pipeline/digits.js';
import { normaliseDate, normaliseFields, normaliseName, type RawField } from '../../src/reader/pipeline/fields.js';
import { LINE_MODEL, OnnxLineRecogniser } from '../../src/reader/pipeline/line-recogniser.js';
import { agreementVouches, combineName } from '../../src/reader/pipeline/name-line.js';
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
    limit: { type: 'string' },
    model: { type: 'string' },
  },
});
const dir = values.real!;
if (!fs.existsSync(path.join(dir, 'truth.jsonl'))) throw new Error(`no truth.jsonl in ${dir} (--real DIR)`);
const ocr = chooseOcrEngine(values.engine as 'auto' | 'native' | 'js');
/** `--model DIR`: another build of the network (a checkpoint's export), taken as it is. */
const network = values.model
  ? new OnnxLineRecogniser(
      values.model,
      createHash('sha256')
        .update(fs.readFileSync(path.join(values.model, LINE_MODEL.file)))
        .digest('hex'),
    )
  : new OnnxLineRecogniser();
const limit = Number(values.limit ?? Infinity);

const FIELDS: IdCardField[] = ['name', 'id', 'dob', 'doe'];
/** Places: every value line the pipeline placed, read alone by each reader and joined (scored as eval:idcard scores a place). */
const PLACES: IdCardField[] = ['home', 'address'];
/** A reading as the answer would spell it, for comparison with the printed value. */
function canonical(field: IdCardField, text: string): string {
  if (field === 'name') return normaliseName(text);
  if (PLACES.includes(field)) return text.normalize('NFC').replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
  if (field === 'id') return text.replace(/\D/g, '');
  return normaliseDate(text) ?? text.replace(/\s+/g, '');
}

type Tally = { lines: number; exact: number; errors: number; chars: number };
const tally = (): Tally => ({ lines: 0, exact: 0, errors: 0, chars: 0 });
const alone: Record<'tesseract' | 'network', Partial<Record<IdCardField, Tally>>> = { tesseract: {}, network: {} };
const truthLines: Partial<Record<IdCardField, number>> = {};
type Answers = { exact: number; sureRight: number; sureWrong: number };
const answers = (): Answers => ({ exact: 0, sureRight: 0, sureWrong: 0 });
const names = {
  cards: 0,
  answers: { without: answers(), networkMarks: answers(), tesseractMarks: answers() },
  agreed: 0,
  agreedRight: 0,
  /** Per card kind: names the two readers agreed on, and how many of those were right. */
  byKind: {} as Record<string, { agreed: number; right: number }>,
  pipelineExact: 0,
};

/**
 * A name answer (raw reading `name`, the two readers agreeing or not) scored: exact, and right or wrong at
 * `_prob` >= 80. The probability is the name's own (the rows' reading's doubt, run.ts `recovered`, left out).
 */
function answer(tally: Answers, layout: CardLayout, name: RawField | undefined, agreed: boolean, want: string): boolean {
  const v = name ? normaliseFields(layout, { name }).fields.name : undefined;
  if (!v) return false;
  const right = v.value === want;
  // As run.ts: the two readers agreeing (where that vouches for a name) is the independent reading a name's form check needs.
  const prob = fieldProbability(agreed ? { ...v, unsure: false, formOnly: false } : v);
  tally.exact += Number(right);
  if (prob >= 80) tally[right ? 'sureRight' : 'sureWrong']++;
  return right;
}
const misses: string[] = [];

function score(t: Tally, got: string, want: string): boolean {
  t.lines++;
  t.chars += want.length;
  t.errors += Math.min(want.length, levenshtein(got, want));
  if (got === want) t.exact++;
  return got === want;
}

for (const e of readTruthFile(dir)) {
  if (!(e.kind in LAYOUTS) || names.cards >= limit) continue;
  const layout = LAYOUTS[e.kind as CardKind];
  const fields = [...FIELDS, ...PLACES].filter((f) => layout.fields.includes(f) && e.fields[f]);
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
    // Cut as the stages cut them: a place's lines and the name with the detected lines just after them (place-line.ts,
    // name-line.ts), an id or date on the detected lines over its words (digits.ts).
    const boxes = PLACES.includes(f)
      ? anchored.lineBoxes.map((b) => digitLineBox({ lineBoxes: [b] }, v.lines, 'near'))
      : [digitLineBox(anchored, v.lines, f === 'name' ? 'near' : 'overlap')];
    const want = canonical(f, e.fields[f]);
    const net = (await network.readLines(v.gray, 1000, 630, boxes)).map((l) => l.text).join(' ');
    const tess: string[] = [];
    for (const box of boxes) {
      const stack = await stackBands(v.gray, [box], DEFAULT_FIELD_SCALE);
      tess.push((await ocr.recognize(stack.image, { lang: 'vie', psm: 7 })).map((w) => w.text).join(' '));
    }
    const okT = score((alone.tesseract[f] ??= tally()), canonical(f, tess.join(' ')), want);
    const okN = score((alone.network[f] ??= tally()), canonical(f, net), want);
    if (values.misses && okT !== okN) misses.push(`${e.file} ${f}: ${okN ? 'network' : 'tesseract'} alone right`);
  }
  if (fields.includes('name')) {
    names.cards++;
    const want = normaliseName(e.fields.name);
    const rightWithout = answer(names.answers.without, layout, v.tesseract.name, false, want);
    const withNet = combineName(v.tesseract.name, v.network, 'network');
    const vouches = agreementVouches(e.kind as CardKind);
    const rightWith = answer(names.answers.networkMarks, layout, withNet.name, withNet.agreed && vouches, want);
    const withTess = combineName(v.tesseract.name, v.network, 'tesseract');
    answer(names.answers.tesseractMarks, layout, withTess.name, withTess.agreed && vouches, want);
    if (withNet.agreed) {
      names.agreed++;
      names.agreedRight += Number(rightWithout);
      const k = (names.byKind[e.kind] ??= { agreed: 0, right: 0 });
      k.agreed++;
      k.right += Number(rightWithout);
    }
    if (r.ok && r.fields.name) names.pipelineExact += Number(r.fields.name.value === want);
    if (values.misses && rightWith !== rightWithout) misses.push(`${e.file} name: right ${rightWith ? 'only with' : 'only without'} the network`);
  }
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
console.log(`\nLine crops from ${dir} (kinds with the field printed; a line is cut only where the pipeline placed the field)\n`);
console.log('| field | printed | lines cut | Tesseract exact | network exact | Tesseract char acc. | network char acc. |');
console.log('|---|---|---|---|---|---|---|');
for (const f of [...FIELDS, ...PLACES]) {
  const t = alone.tesseract[f] ?? tally();
  const n = alone.network[f] ?? tally();
  console.log(
    `| ${f} | ${truthLines[f] ?? 0} | ${t.lines} | ${t.exact} (${pct(t.exact, t.lines)}) | ${n.exact} (${pct(n.exact, n.lines)}) | ${pct(t.chars - t.errors, t.chars)} | ${pct(n.chars - n.errors, n.chars)} |`,
  );
}
console.log(`\nNames in the pipeline (${names.cards} fronts with a name printed and read to the name stage)\n`);
console.log('| answer | exact names | right at _prob >= 80 | wrong at _prob >= 80 |');
console.log('|---|---|---|---|');
const rows: [string, Answers][] = [
  ["Tesseract's readings only", names.answers.without],
  ["combined, network's marks", names.answers.networkMarks],
  ["combined, Tesseract's marks", names.answers.tesseractMarks],
];
for (const [label, a] of rows) console.log(`| ${label} | ${a.exact} | ${a.sureRight} | ${a.sureWrong} |`);
console.log(`\nThe two readers agreed on ${names.agreed} names, ${names.agreedRight} of them right. The pipeline's own answers: ${names.pipelineExact} exact.`);
console.log(`Agreed names by kind (right / agreed): ${Object.entries(names.byKind).map(([k, t]) => `${k} ${t.right}/${t.agreed}`).join(', ')}`);
if (values.misses) for (const m of misses) console.log(m);
await ocr.close();
