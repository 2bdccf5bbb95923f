/**
 * Accuracy evaluation of the passport and driving-licence readers on generated,
 * photographed documents (fixtures/documents/variation.ts) or on a folder of real
 * photos: per kind, the found rate (read, and the right model and side),
 * per-field exact match (accent-exact), how often an answer with `_prob` >= 80
 * is wrong, the passport MRZ's full validity, and CPU per image (this process
 * plus the Tesseract processes).
 *
 *   npm run eval:documents -- [--n 16] [--seed 5000] [--kind passport,dl_pet_front,...] [--jitter 0.03] [--misses 12]
 *   npm run eval:documents -- --real DIR   (DIR/truth.jsonl: one {"file","document":"passport"|"licence",
 *                                           "type"?: "old"|"old_back"|"new"|"new_back", fields...} a line)
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { licenceItem, readLicence } from '../../src/reader/documents/licence/licence.js';
import { passportItem, readPassport } from '../../src/reader/documents/passport/passport.js';
import { chooseOcrEngine } from '../../src/reader/pipeline/ocr.js';
import { LICENCE_SAMPLE_KINDS, makeLicenceSample, makePassportSample } from '../../fixtures/documents/variation.js';
import { ocrCpuSeconds, ownCpuSeconds } from '../support/cpu.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '16' },
    seed: { type: 'string', default: '5000' },
    kind: { type: 'string' },
    jitter: { type: 'string', default: '0.03' },
    real: { type: 'string' },
    misses: { type: 'string', default: '12' },
  },
});
const ocr = chooseOcrEngine('auto');
const maxMisses = Number(values.misses);
const ALL = ['passport', ...LICENCE_SAMPLE_KINDS];
const kinds = values.kind ? values.kind.split(',') : ALL;

/** CPU seconds of this process, its reaped children and the live Tesseract processes. */
function cpu(): number {
  return ownCpuSeconds() + ocrCpuSeconds(ocr);
}

interface Tally {
  n: number;
  found: number;
  cpu: number;
  mrzValid: number;
  confidentWrong: number;
  answered: number;
  fields: Map<string, { right: number; total: number }>;
  misses: string[];
}
const tallies = new Map<string, Tally>();
const tally = (k: string) => {
  let t = tallies.get(k);
  if (!t) tallies.set(k, (t = { n: 0, found: 0, cpu: 0, mrzValid: 0, confidentWrong: 0, answered: 0, fields: new Map(), misses: [] }));
  return t;
};

/** Scores one answer item against the truth's fields (arrays compared whole). */
function score(t: Tally, label: string, truth: Record<string, unknown>, item: Record<string, unknown>): void {
  for (const [f, want] of Object.entries(truth)) {
    const s = t.fields.get(f) ?? { right: 0, total: 0 };
    s.total++;
    const got = item[f];
    const right = JSON.stringify(got) === JSON.stringify(want);
    if (right) s.right++;
    else if (t.misses.length < maxMisses) t.misses.push(`${label} ${f}: want ${JSON.stringify(want)} got ${JSON.stringify(got)} @${JSON.stringify(item[`${f}_prob`])}`);
    if (got !== undefined && got !== 'N/A' && typeof item[`${f}_prob`] === 'string') {
      t.answered++;
      if (!right && Number(item[`${f}_prob`]) >= 80) t.confidentWrong++;
    }
    t.fields.set(f, s);
  }
}

async function readOne(document: string, image: Buffer): Promise<{ item?: Record<string, unknown>; mrzValid?: boolean; mrzLines?: string[] }> {
  const task = { image, face: false, maxPixels: 4e7, minCardArea: 0.12 };
  if (document === 'passport') {
    const r = await readPassport(task, ocr);
    return r.ok ? { item: passportItem(r), mrzValid: !!r.mrz?.valid, mrzLines: r.mrz?.lines } : {};
  }
  const r = await readLicence(task, ocr);
  return r.ok ? { item: licenceItem(r) } : {};
}

// Warm-up: OpenCV's load is once per process, not per document.
await readOne('passport', (await makePassportSample(1)).photo.jpeg);

let title: string;
if (values.real) {
  const lines = fs
    .readFileSync(path.join(values.real, 'truth.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  for (const line of lines) {
    const { file, document, type, ...fields } = JSON.parse(line) as Record<string, unknown> & { file: string; document: string; type?: string };
    const k = document === 'passport' ? 'passport' : `licence ${type ?? '?'}`;
    const t = tally(k);
    t.n++;
    const before = cpu();
    const { item, mrzValid } = await readOne(document, fs.readFileSync(path.join(values.real, file)));
    t.cpu += cpu() - before;
    if (!item || (type && item.type !== type)) {
      t.misses.push(`${file}: ${item ? `type ${String(item.type)}` : 'not found'}`);
      continue;
    }
    t.found++;
    if (mrzValid) t.mrzValid++;
    score(t, file, fields, item);
  }
  title = `documents evaluation: ${lines.length} real photos of ${values.real}`;
} else {
  const n = Number(values.n);
  const seed0 = Number(values.seed);
  for (let i = 0; i < n; i++) {
    const kind = kinds[i % kinds.length];
    const seed = seed0 + i;
    const variation = { jitter: Number(values.jitter) };
    const t = tally(kind);
    t.n++;
    let image: Buffer;
    let truth: Record<string, unknown>;
    let type: string;
    let truthMrz: string[] | undefined;
    if (kind === 'passport') {
      const s = await makePassportSample(seed, {}, variation);
      image = s.photo.jpeg;
      truth = s.truth.fields;
      type = 'passport';
      truthMrz = s.truth.mrz;
    } else {
      const s = await makeLicenceSample(seed, kind as (typeof LICENCE_SAMPLE_KINDS)[number], {}, variation);
      image = s.photo.jpeg;
      truth = s.truth.classes ? { class: s.truth.classes, date: s.truth.dates } : s.truth.fields;
      type = s.truth.type;
    }
    const before = cpu();
    const { item, mrzValid, mrzLines } = await readOne(kind === 'passport' ? 'passport' : 'licence', image);
    t.cpu += cpu() - before;
    if (!item || item.type !== type) {
      t.misses.push(`seed ${seed}: ${item ? `type ${String(item.type)}` : 'not found'}`);
      continue;
    }
    t.found++;
    if (mrzValid) t.mrzValid++;
    else if (truthMrz && t.misses.length < maxMisses)
      t.misses.push(`seed ${seed} MRZ not valid: read ${JSON.stringify(mrzLines ?? null)} printed ${JSON.stringify(truthMrz)}`);
    score(t, `seed ${seed}`, truth, item);
  }
  title = `documents evaluation: ${n} generated photos (jitter ${values.jitter}), seeds ${seed0}..${seed0 + n - 1}, kinds ${kinds.join(', ')}`;
}

console.log(`${title}, OCR ${ocr.name}`);
for (const [k, t] of tallies) {
  const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
  console.log(
    `\n${k}: ${t.n} images, found ${pct(t.found, t.n)}%, CPU per image ${(t.cpu / Math.max(1, t.n)).toFixed(3)} s` +
      (k === 'passport' ? `, MRZ fully valid ${pct(t.mrzValid, t.found)}%` : '') +
      `, confident (>= 80) wrong ${t.confidentWrong} of ${t.answered} answered`,
  );
  for (const [f, s] of t.fields) console.log(`  ${f.padEnd(14)} ${pct(s.right, s.total).padStart(5)}% exact (${s.right}/${s.total})`);
  for (const m of t.misses) console.log(`  miss: ${m}`);
}
await ocr.close();
