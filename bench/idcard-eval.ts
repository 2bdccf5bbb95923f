/**
 * Accuracy evaluation of the ID card reader on synthetic photos
 * (bench/idcard-synth.ts): per-field exact match (accent-exact), card-finding
 * rate, and CPU time per image (this process plus the Tesseract children).
 *
 *   npm run eval:idcard -- [--n 120] [--seed 1000] [--engine auto|native|once|js]
 *
 * `once` is the native program started once per OCR call (the mode without `stdbuf`), for comparison. [--kind cccd_chip_front] [--misses 40]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { CARD_WIDTH, LAYOUTS, type CardKind } from '../src/reader/layouts.js';
import { chooseOcrEngine, NativeTesseract } from '../src/reader/pipeline/ocr.js';
import { readCard } from '../src/reader/pipeline/run.js';
import { ALL_KINDS, makeSample } from './idcard-synth.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1000' },
    engine: { type: 'string', default: 'auto' },
    kind: { type: 'string' },
    misses: { type: 'string', default: '40' },
    tessdata: { type: 'string' },
  },
});
const n = Number(values.n);
const seed0 = Number(values.seed);
const kinds = values.kind ? [values.kind as CardKind] : ALL_KINDS;
const ocr =
  values.engine === 'once' || values.tessdata
    ? new NativeTesseract({ streaming: values.engine !== 'once', tessdataDir: values.tessdata })
    : chooseOcrEngine(values.engine as 'auto' | 'native' | 'js');

/** Clock ticks of user + system CPU in a /proc/<pid>/stat line: the process's own, or (children) of its reaped children. */
function statTicks(pid: number | 'self', children = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return children ? Number(fields[13]) + Number(fields[14]) : Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process has just ended: its time is in the parent's children ticks
  }
}

/**
 * CPU seconds of this process, its finished children (one-shot Tesseract runs)
 * and the long-lived Tesseract processes still running.
 */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  const live = (ocr.pids?.() ?? []).reduce((sum, pid) => sum + statTicks(pid), 0);
  return (u.user + u.system) / 1e6 + (statTicks('self', true) + live) / 100;
}

type Tally = { right: number; total: number };
const perField = new Map<string, Tally>();
const perKindField = new Map<string, Tally>();
const count = (map: Map<string, Tally>, key: string, ok: boolean) => {
  const t = map.get(key) ?? { right: 0, total: 0 };
  t.total++;
  if (ok) t.right++;
  map.set(key, t);
};
let found = 0;
let classified = 0;
let cpuTotal = 0;
const failures: string[] = [];
const refusals = new Map<string, number>();
/** Wall milliseconds per pipeline stage over the cards read (`retried`: fields read twice). */
const stageTotals = new Map<string, number>();
const cornerErrors: number[] = [];

// Warm-up: OpenCV load is a one-off per worker thread, not per card.
await readCard({ image: (await makeSample(1, 'cccd_chip_front')).photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);

for (let i = 0; i < n; i++) {
  const kind = kinds[i % kinds.length];
  const sample = await makeSample(seed0 + i, kind);
  const before = cpuSeconds();
  const r = await readCard({ image: sample.photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  cpuTotal += cpuSeconds() - before;
  if (!r.ok) {
    refusals.set(`${r.code}: ${r.message}`, (refusals.get(`${r.code}: ${r.message}`) ?? 0) + 1);
    if (failures.length < Number(values.misses)) failures.push(`${kind} seed ${seed0 + i}: refused with ${r.code}`);
    for (const f of Object.keys(sample.truth.fields)) count(perField, f, false);
    continue;
  }
  found++;
  // Outline accuracy: the worst corner's distance from the true one, in flat-card pixels (1000 = the card's width),
  // whichever corner the reader took for the top-left (a card turned by 90 or 180 degrees).
  const truth = sample.photo.corners;
  const cardWidth = Math.hypot(truth[1].x - truth[0].x, truth[1].y - truth[0].y);
  const worst = (shift: number) => Math.max(...r.corners.map((p, k) => Math.hypot(p.x - truth[(k + shift) % 4].x, p.y - truth[(k + shift) % 4].y)));
  cornerErrors.push((Math.min(worst(0), worst(1), worst(2), worst(3)) * CARD_WIDTH) / cardWidth);
  for (const [stage, ms] of Object.entries(r.timings)) stageTotals.set(stage, (stageTotals.get(stage) ?? 0) + ms);
  const sameType = LAYOUTS[r.kind].type === LAYOUTS[kind].type && LAYOUTS[r.kind].side === LAYOUTS[kind].side;
  if (sameType) classified++;
  else if (failures.length < Number(values.misses)) failures.push(`${kind} seed ${seed0 + i}: read as ${r.kind}`);
  for (const [f, want] of Object.entries(sample.truth.fields)) {
    const got = r.fields[f as keyof typeof r.fields]?.value ?? 'N/A';
    // The gazetteer has a few double spaces ("Huyện  Vũng Liêm"); the printed card (SVG) shows one.
    const ok = got === want.replace(/\s+/g, ' ');
    count(perField, f, ok);
    count(perKindField, `${kind}.${f}`, ok);
    if (!ok && failures.length < Number(values.misses)) failures.push(`${kind} seed ${seed0 + i} ${f}: got "${got}" want "${want}"`);
  }
  if (sample.truth.addressEntities && LAYOUTS[kind].side === 'front') {
    const e = r.addressEntities;
    const w = sample.truth.addressEntities;
    const same = (got: string, want: string) => got === want.replace(/\s+/g, ' ');
    const ok = !!e && same(e.province, w.province) && same(e.district, w.district) && same(e.ward, w.ward) && same(e.street, w.street);
    count(perField, 'address_entities', ok);
    if (!ok && failures.length < Number(values.misses)) failures.push(`${kind} seed ${seed0 + i} address_entities: got ${JSON.stringify(e)} want ${JSON.stringify(w)}`);
  }
}

const pct = (t: Tally) => `${((100 * t.right) / Math.max(1, t.total)).toFixed(1)}% (${t.right}/${t.total})`;
console.log(`ID card evaluation: ${n} synthetic photos, kinds ${kinds.join(', ')}, seeds ${seed0}..${seed0 + n - 1}, OCR ${ocr.name}`);
console.log(`card found: ${((100 * found) / n).toFixed(1)}% (${found}/${n}); side and type right: ${((100 * classified) / n).toFixed(1)}%`);
cornerErrors.sort((a, b) => a - b);
const quantile = (q: number) => (cornerErrors[Math.min(cornerErrors.length - 1, Math.floor(q * cornerErrors.length))] ?? NaN).toFixed(1);
console.log(`outline, worst corner off (flat-card px, card 1000 wide): median ${quantile(0.5)}, p90 ${quantile(0.9)}, max ${quantile(1)}`);
console.log(`CPU per image (read only, incl. tesseract children): ${(cpuTotal / n).toFixed(3)} s`);
console.log(`per card read, mean: ${[...stageTotals.entries()].map(([k, v]) => `${k} ${(v / Math.max(1, found)).toFixed(k === 'retried' ? 2 : 0)}${k === 'retried' ? ' fields' : ' ms'}`).join(', ')}`);
console.log('exact match per field:');
for (const [f, t] of [...perField.entries()].sort()) console.log(`  ${f.padEnd(18)} ${pct(t)}`);
console.log('per kind:');
for (const [f, t] of [...perKindField.entries()].sort()) console.log(`  ${f.padEnd(30)} ${pct(t)}`);
if (refusals.size) console.log('refusals:', Object.fromEntries(refusals));
if (failures.length) console.log(`first misses:\n  ${failures.join('\n  ')}`);
await ocr.close();
