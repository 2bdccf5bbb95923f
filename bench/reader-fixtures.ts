/**
 * Writes the reader's committed test images (test/fixtures/reader/): a small
 * fixed set of synthetic card photos with their ground truth. Run again only
 * when the classic templates (bench/idcard-templates.ts) change:  npx tsx bench/reader-fixtures.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { CardKind } from '../src/reader/layouts.js';
import { makeSample, type PhotoOptions } from './idcard-synth.js';

const OUT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'reader');

const SET: { name: string; seed: number; kind: CardKind; options: PhotoOptions }[] = [
  { name: 'chip-front', seed: 11, kind: 'cccd_chip_front', options: { width: 1200, rotation: 4, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'chip-front-upside-down', seed: 12, kind: 'cccd_chip_front', options: { width: 1200, rotation: 178, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'chip-back', seed: 13, kind: 'cccd_chip_back', options: { width: 1200, rotation: -3, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'cccd12-front', seed: 14, kind: 'cccd_12_front', options: { width: 1200, rotation: -6, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'cmnd12-back', seed: 15, kind: 'cmnd_12_back', options: { width: 1200, rotation: 2, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'cmnd09-front', seed: 16, kind: 'cmnd_09_front', options: { width: 1200, rotation: 8, glare: false, blurSigma: 0, jpegQuality: 85 } },
  { name: 'cmnd09-back', seed: 17, kind: 'cmnd_09_back', options: { width: 1200, rotation: -5, glare: false, blurSigma: 0, jpegQuality: 85 } },
  // Two photos of the evaluation set (default options) that were refused: a whole card 20 px from the bottom edge whose
  // rough outline ran off it (2), and a 9-digit back whose header read as nothing in block and sparse mode (3).
  { name: 'cccd12-back-near-edge', seed: 41157, kind: 'cccd_12_back', options: {} },
  { name: 'cmnd09-back-busy-header', seed: 41145, kind: 'cmnd_09_back', options: {} },
];

fs.mkdirSync(OUT, { recursive: true });
const truth: Record<string, unknown> = {};
for (const f of SET) {
  const s = await makeSample(f.seed, f.kind, f.options);
  fs.writeFileSync(path.join(OUT, `${f.name}.jpg`), s.photo.jpeg);
  truth[f.name] = s.truth;
  console.log(f.name, s.photo.jpeg.length);
}
// A card running off the frame: the chip front photographed, then cut through the card.
const cut = await makeSample(18, 'cccd_chip_front', { width: 1200, rotation: 0, cardFraction: 0.8, glare: false, blurSigma: 0 });
const meta = { width: cut.photo.width, height: cut.photo.height };
const left = Math.round(Math.min(...cut.photo.corners.map((p) => p.x)) + 120);
await sharp(cut.photo.jpeg)
  .extract({ left, top: 0, width: meta.width - left, height: meta.height })
  .jpeg({ quality: 80 })
  .toFile(path.join(OUT, 'cut-off.jpg'));
fs.writeFileSync(path.join(OUT, 'truth.json'), JSON.stringify(truth, null, 1) + '\n');
