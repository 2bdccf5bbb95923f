/**
 * Accuracy evaluation of the ID card reader on synthetic photos
 * (fixtures/cards/synth.ts) or on a folder of real photos: per-field exact match
 * (accent-exact), card-finding rate, how often an answer with `_prob` >= 80 is
 * wrong, and CPU time per image (this process plus the Tesseract children).
 *
 *   npm run eval:idcard -- [--n 120] [--seed 1000] [--engine auto|native|once|js] [--kind K] [--misses 40]
 *                          [--classic] [--jitter 0.04] [--fonts "DejaVu Serif,DejaVu Sans"] [--tessdata DIR]
 *   npm run eval:idcard -- --real DIR [--kind passport,cccd_chip_back] [--reliability]   (DIR/truth.jsonl: one {"file","kind", fields...} a line;
 *                                          a passport is scored on the number, name and dates its MRZ carries,
 *                                          a licence front (kind dl_*) on the licence answer's fields; CPU per kind)
 *
 * `--reliability` adds the reliability table: per field and `_prob` band (< 50, 50-79, 80-94, >= 95), the values
 * answered and how many of them are exact.
 *
 * By default the cards are printed with per-card variation (idcard-variation.ts: printing offsets, fonts, label
 * wordings, wrapping; the 2024 card too); a new seed is a new set. `--classic` prints the classic templates instead.
 * `once` is the native program started once per OCR call (the mode without `stdbuf`), for comparison.
 */
import { parseArgs } from 'node:util';
import { CARD_WIDTH } from '../../src/reader/layouts.js';
import { chooseOcrEngine, NativeTesseract } from '../../src/reader/pipeline/ocr.js';
import { readCard } from '../../src/reader/pipeline/run.js';
import type { CardKind } from '../../fixtures/cards/templates.js';
import { evaluateFolder, Scores } from './score.js';
import { ALL_KINDS, makeSample, VARIED_KINDS } from '../../fixtures/cards/synth.js';
import { installedFonts, type Variation } from '../../fixtures/cards/variation.js';
import { setImageThreads } from '../../src/platform/vision/image-threads.js';
import { loadConfig } from '../../src/platform/config.js';
import { ocrCpuSeconds, ownCpuSeconds } from '../support/cpu.js';

// As the server runs it (SAOLA_IMAGE_THREADS).
setImageThreads(loadConfig().imageThreads);

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1000' },
    engine: { type: 'string', default: 'auto' },
    kind: { type: 'string' },
    misses: { type: 'string' },
    tessdata: { type: 'string' },
    classic: { type: 'boolean', default: false },
    jitter: { type: 'string', default: '0.04' },
    fonts: { type: 'string' },
    real: { type: 'string' },
    reliability: { type: 'boolean', default: false },
  },
});
const n = Number(values.n);
const seed0 = Number(values.seed);
const variation: Variation | undefined = values.classic ? undefined : { jitter: Number(values.jitter), fonts: values.fonts?.split(',').map((f) => f.trim()) };
const kinds: CardKind[] = values.kind ? (values.kind.split(',') as CardKind[]) : variation ? VARIED_KINDS : ALL_KINDS;
const ocr =
  values.engine === 'once' || values.tessdata
    ? new NativeTesseract({ streaming: values.engine !== 'once', tessdataDir: values.tessdata })
    : chooseOcrEngine(values.engine as 'auto' | 'native' | 'js');

/** CPU seconds of this process, its finished children (one-shot Tesseract runs) and the long-lived Tesseract processes. */
function cpuSeconds(): number {
  return ownCpuSeconds() + ocrCpuSeconds(ocr);
}

// A real set lists every miss (by file name); a synthetic one the first 40.
const scores = new Scores(Number(values.misses ?? (values.real ? 1e6 : 40)));
let cpuTotal = 0;
let ocrCpuTotal = 0;
/** Wall milliseconds per pipeline stage over the cards read (`retried`: fields read twice). */
const stageTotals = new Map<string, number>();
const cornerErrors: number[] = [];

// Warm-up: OpenCV load is a one-off per worker thread, not per card.
await readCard({ image: (await makeSample(1, 'cccd_chip_front')).photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);

/** The reliability table, when asked for. */
function printReliability(): void {
  if (!values.reliability) return;
  console.log('reliability: values answered per `_prob` band, exact / answered');
  for (const line of scores.reliabilityReport()) console.log(line);
}

if (values.real) {
  const before = cpuSeconds();
  await evaluateFolder(values.real, ocr, scores, values.kind?.split(','), cpuSeconds);
  console.log(`ID card evaluation: ${scores.cards} photos of ${values.real} (truth.jsonl), OCR ${ocr.name}`);
  console.log(`CPU per image (read only, incl. tesseract children): ${((cpuSeconds() - before) / Math.max(1, scores.cards)).toFixed(3)} s`);
  const timed = Math.max(1, scores.cardsTimed);
  console.log(
    `ID cards read (${scores.cardsTimed}), mean wall ms by stage: ${[...scores.stageTotals.entries()].map(([k, v]) => `${k} ${(v / timed).toFixed(k === 'retried' ? 2 : 0)}`).join(', ')}`,
  );
  for (const line of scores.report()) console.log(line);
  printReliability();
  await ocr.close();
  process.exit(0);
}

for (let i = 0; i < n; i++) {
  const kind = kinds[i % kinds.length];
  const sample = await makeSample(seed0 + i, kind, {}, variation);
  const before = cpuSeconds();
  const ocrBefore = ocrCpuSeconds(ocr);
  const r = await readCard({ image: sample.photo.jpeg, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  cpuTotal += cpuSeconds() - before;
  ocrCpuTotal += ocrCpuSeconds(ocr) - ocrBefore;
  scores.add(`seed ${seed0 + i}`, kind, sample.truth.fields as Record<string, string>, r, sample.truth.addressEntities);
  if (!r.ok) continue;
  // Outline accuracy: the worst corner's distance from the true one, in flat-card pixels (1000 = the card's width),
  // whichever corner the reader took for the top-left (a card turned by 90 or 180 degrees).
  const truth = sample.photo.corners;
  const cardWidth = Math.hypot(truth[1].x - truth[0].x, truth[1].y - truth[0].y);
  const worst = (shift: number) => Math.max(...r.corners.map((p, k) => Math.hypot(p.x - truth[(k + shift) % 4].x, p.y - truth[(k + shift) % 4].y)));
  cornerErrors.push((Math.min(worst(0), worst(1), worst(2), worst(3)) * CARD_WIDTH) / cardWidth);
  for (const [stage, ms] of Object.entries(r.timings)) stageTotals.set(stage, (stageTotals.get(stage) ?? 0) + ms);
}

console.log(
  `ID card evaluation: ${n} synthetic photos (${variation ? `varied printing, jitter ${variation.jitter}, fonts ${installedFonts().join(' / ')}` : 'classic templates'}), kinds ${kinds.join(', ')}, seeds ${seed0}..${seed0 + n - 1}, OCR ${ocr.name}`,
);
cornerErrors.sort((a, b) => a - b);
const quantile = (q: number) => (cornerErrors[Math.min(cornerErrors.length - 1, Math.floor(q * cornerErrors.length))] ?? NaN).toFixed(1);
console.log(`outline, worst corner off (flat-card px, card 1000 wide): median ${quantile(0.5)}, p90 ${quantile(0.9)}, max ${quantile(1)}`);
console.log(
  `CPU per image (read only, incl. tesseract children): ${(cpuTotal / n).toFixed(3)} s (Tesseract ${(ocrCpuTotal / n).toFixed(3)} s, the reader's own ${((cpuTotal - ocrCpuTotal) / n).toFixed(3)} s)`,
);
console.log(
  `per card read, mean: ${[...stageTotals.entries()].map(([k, v]) => `${k} ${(v / Math.max(1, scores.found)).toFixed(k === 'retried' ? 2 : 0)}${k === 'retried' ? ' fields' : ' ms'}`).join(', ')}`,
);
for (const line of scores.report()) console.log(line);
printReliability();
await ocr.close();
