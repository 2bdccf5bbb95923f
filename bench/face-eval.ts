/**
 * `npm run eval:face [-- <dir>]`: face verification accuracy on labelled pairs
 * (default /work/shared/data/faces, pairs.csv with file_x,file_y,same_person):
 * TAR at FAR 1e-3/1e-4, EER, missed detections, 406/410 false alarms on
 * real photos and their hit rate on synthetic covered / ID-card versions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { assessFace, looksLikeIdCard } from '../src/face/engine/index.js';
import { analyze } from '../src/face/engine/worker.js';
import { evaluateFacePairs, formatEvaluation, readPairs } from '../src/face/evaluation.js';
import sharp from 'sharp';
import { idCardPhoto, withMask, withSunglasses } from '../test/face/helpers.js';

const dir = process.argv[2] ?? '/work/shared/data/faces';
if (!fs.existsSync(path.join(dir, 'pairs.csv'))) {
  console.log(`no pairs.csv in ${dir}: nothing to evaluate`);
  process.exit(0);
}
const result = await evaluateFacePairs(dir);
console.log(formatEvaluation(result));

// Hit rates of the 406 and 410 detectors on synthetic versions of the same photos.
const names = [...new Set(readPairs(dir).flatMap((p) => [p.x, p.y]))];
let covered = 0;
let masks = 0;
let cards = 0;
let tried = 0;
for (const n of names) {
  const img = fs.readFileSync(path.join(dir, n));
  const r = await analyze({ image: img, detectThreshold: 0.7, checkCard: false });
  if (!r.ok || !r.primary) continue;
  tried++;
  const lm = r.primary.landmarks;
  const c = (from: number): [number, number] => [0, 1].map((k) => [0, 1, 2, 3, 4, 5].reduce((s, i) => s + lm[2 * (from + i) + k] / 6, 0)) as [number, number];
  const scale = (await sharp(await sharp(img).rotate().toBuffer()).metadata()).width! / r.width;
  const shades = await analyze({ image: await withSunglasses(img, { left: c(36), right: c(42) }, scale), detectThreshold: 0.7, checkCard: false });
  if (assessFace(shades, { minFacePx: 40, secondFaceRatio: 0.25, minBlurVariance: 0 }, { single: false }).kind === 'occluded') covered++;
  const masked = await analyze({ image: await withMask(img, lm, scale), detectThreshold: 0.7, checkCard: false });
  if (assessFace(masked, { minFacePx: 40, secondFaceRatio: 0.25, minBlurVariance: 0 }, { single: false }).kind === 'occluded') masks++;
  const card = await analyze({ image: await idCardPhoto(img), detectThreshold: 0.7, checkCard: true });
  if (looksLikeIdCard(card)) cards++;
}
console.log(`406 hit rate on drawn dark glasses: ${covered}/${tried}, on drawn masks: ${masks}/${tried}; 410 hit rate on synthetic ID-card photos: ${cards}/${tried}`);
