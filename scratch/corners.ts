import { makeSample, ALL_KINDS } from '../bench/idcard-synth.js';
import { decodeImage } from '../src/reader/pipeline/decode.js';
import { locateCard } from '../src/reader/pipeline/locate.js';
import { refineCorners } from '../src/reader/pipeline/refine.js';
const [seed0, n, mode] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4] ?? 'coarse'];
const errs: number[] = [];
let t = 0;
for (let i = 0; i < n; i++) {
  const kind = ALL_KINDS[i % ALL_KINDS.length];
  const s = await makeSample(seed0 + i, kind);
  const image = await decodeImage(Buffer.from(s.photo.jpeg), 4e7);
  let c;
  try { c = (await locateCard(image.gray, image.width, image.height, 0.12)).corners; } catch { errs.push(999); continue; }
  const t0 = performance.now();
  if (mode === 'refine') c = refineCorners(image.gray, image.width, image.height, c);
  t += performance.now() - t0;
  const truth = s.photo.corners;
  const cardW = Math.hypot(truth[1].x - truth[0].x, truth[1].y - truth[0].y);
  const err = (shift: number) => Math.max(...[0, 1, 2, 3].map((k) => Math.hypot(c[k].x - truth[(k + shift) % 4].x, c[k].y - truth[(k + shift) % 4].y)));
  const e = Math.min(err(0), err(1), err(2), err(3)) * (1000 / cardW);
  errs.push(e);
  if (e > 8) console.log(`seed ${seed0 + i} ${kind} max corner error ${e.toFixed(1)} card px`);
}
errs.sort((a, b) => a - b);
const q = (p: number) => errs[Math.min(errs.length - 1, Math.floor(p * errs.length))].toFixed(1);
console.log(`${mode}: n=${n} median ${q(0.5)} p90 ${q(0.9)} p98 ${q(0.98)} max ${q(1)} card px; >5: ${errs.filter((e) => e > 5).length}, >10: ${errs.filter((e) => e > 10).length}; refine ms/card ${(t / n).toFixed(1)}`);
