/**
 * Where a real photo's CPU goes: reads the ID-card fronts of a folder with truth.jsonl (no scoring) and prints,
 * per photo and on average, the CPU of this process and of the Tesseract processes, each stage's wall time, and
 * each OCR call's image size and Tesseract CPU.
 *
 *   npx tsx bench/reader-profile.ts DIR [--kind chip_front,...] [--save FOLDER]   (--save: every image handed to OCR, for offline timing)
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { chooseOcrEngine, readPgm, type OcrEngine } from '../src/reader/pipeline/ocr.js';
import { readCard } from '../src/reader/pipeline/run.js';
import { readTruthFile } from '../eval/reader/score.js';
import { setImageThreads } from '../src/platform/vision/image-threads.js';
import { loadConfig } from '../src/platform/config.js';
import { ocrCpuSeconds, ownCpuSeconds } from '../eval/support/cpu.js';

setImageThreads(loadConfig().imageThreads);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kind: { type: 'string', default: 'chip_front,cccd_front,cancuoc2024_front' }, save: { type: 'string' } },
});
const dir = positionals[0];
const kinds = values.kind!.split(',');
const inner = chooseOcrEngine('auto');
let current = '';
let calls: { psm: number; w: number; h: number; cpu: number }[] = [];
const ocr: OcrEngine = {
  name: inner.name,
  pids: () => inner.pids?.() ?? [],
  close: () => inner.close(),
  async recognize(image, options) {
    // The reader's stacks come as PGM (sharp does not read it), other crops as PNG.
    const pgm = readPgm(image);
    const meta = pgm ?? (await sharp(image).metadata());
    if (values.save) fs.writeFileSync(path.join(values.save, `${current}-${calls.length}-psm${options.psm}.${pgm ? 'pgm' : 'png'}`), image);
    const before = ocrCpuSeconds(inner);
    const out = await inner.recognize(image, options);
    calls.push({ psm: options.psm, w: meta.width ?? 0, h: meta.height ?? 0, cpu: ocrCpuSeconds(inner) - before });
    return out;
  },
};
const entries = readTruthFile(dir).filter((e) => kinds.some((k) => e.file.startsWith(`${k}/`)));
const first = fs.readFileSync(path.join(dir, entries[0].file));
await readCard({ image: first, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr); // warm-up
const stages = new Map<string, number>();
let own = 0;
let tess = 0;
let nCalls = 0;
for (const e of entries) {
  calls = [];
  current = e.file.replace(/[/.]/g, '_');
  const image = fs.readFileSync(path.join(dir, e.file));
  const o0 = ownCpuSeconds();
  const t0 = ocrCpuSeconds(inner);
  const r = await readCard({ image, face: false, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  const o = ownCpuSeconds() - o0;
  const t = ocrCpuSeconds(inner) - t0;
  own += o;
  tess += t;
  nCalls += calls.length;
  const timings = r.ok ? r.timings : {};
  for (const [k, v] of Object.entries(timings)) stages.set(k, (stages.get(k) ?? 0) + v);
  console.log(
    `${e.file}: own ${o.toFixed(2)} s, tesseract ${t.toFixed(2)} s; ${Object.entries(timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(' ')}; calls ${calls.map((c) => `psm${c.psm} ${c.w}x${c.h} ${c.cpu.toFixed(2)}`).join(', ')}`,
  );
}
const n = entries.length;
console.log(
  `${n} photos: CPU per photo ${((own + tess) / n).toFixed(3)} s (own ${(own / n).toFixed(3)}, tesseract ${(tess / n).toFixed(3)}), OCR calls per photo ${(nCalls / n).toFixed(2)}`,
);
console.log(`stage wall ms per photo: ${[...stages].map(([k, v]) => `${k} ${(v / n).toFixed(k === 'retried' ? 2 : 0)}`).join(', ')}`);
await ocr.close();
