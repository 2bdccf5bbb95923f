/**
 * The "hard placements" set: each ID-card photo of a folder of real photos (DIR/truth.jsonl, as `--real`) cut out
 * flat by the reader's own locator and photographed again where the outline is hard to find: turned by 30, 90, 180
 * or 270 degrees, shrunk to a sixth of the photo, on backgrounds synthesised here (sensor noise with blotches,
 * stripes, wood grain, cloth checks, a white table), and tight crops cutting 3-8% off two edges with a skin-coloured
 * blob (a finger) over an edge. Seeded: the same folder and seed give the same set.
 *
 *   npx tsx eval/reader/hard-placements.ts --real DIR [--seed 39] [--out FOLDER]
 *   npm run eval:idcard -- --real FOLDER
 *
 * The photos hold personal data: they are written to a temporary folder (or --out), never into the repository;
 * FOLDER/truth.jsonl repeats the source lines under the new file names. Each photo gets two of the six placements.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { seededRandom } from '../../src/platform/random.js';
import { decodeImage } from '../../src/reader/pipeline/decode.js';
import { placeCard } from '../../src/reader/pipeline/run.js';
import { warpCard } from '../../src/reader/pipeline/warp.js';
import { LAYOUTS } from '../../src/reader/layouts.js';
import { placedOn, tightCropWithFinger } from '../../fixtures/cards/scenes.js';
import { readTruthFile } from './score.js';

type Rng = () => number;

const PLACEMENTS = ['turned30-white', 'turned90-wood', 'turned180-checks', 'turned270-stripes', 'small-noise', 'tight-finger'] as const;
type Placement = (typeof PLACEMENTS)[number];

const { values } = parseArgs({
  options: {
    real: { type: 'string' },
    seed: { type: 'string', default: '39' },
    out: { type: 'string' },
  },
});
if (!values.real) {
  console.error('usage: npx tsx eval/reader/hard-placements.ts --real DIR [--seed 39] [--out FOLDER]');
  process.exit(2);
}

async function make(rng: Rng, flat: Buffer, cw: number, p: Placement): Promise<Buffer> {
  const jitter = (rng() - 0.5) * 6;
  switch (p) {
    case 'turned30-white':
      return placedOn(rng, flat, cw, (rng() < 0.5 ? 30 : -30) + jitter, 'white', 1 / 6);
    case 'turned90-wood':
      return placedOn(rng, flat, cw, 90 + jitter, 'wood', 1 / 4);
    case 'turned180-checks':
      return placedOn(rng, flat, cw, 180 + jitter, 'checks', 1 / 4);
    case 'turned270-stripes':
      return placedOn(rng, flat, cw, 270 + jitter, 'stripes', 1 / 4);
    case 'small-noise':
      return placedOn(rng, flat, cw, jitter * 2, 'noise', 1 / 6);
    case 'tight-finger':
      return tightCropWithFinger(rng, flat, cw);
  }
}

const dir = values.real;
const out = values.out ?? fs.mkdtempSync(path.join(os.tmpdir(), 'saola-hard-placements-'));
fs.mkdirSync(out, { recursive: true });
const seed = Number(values.seed);
const lines: string[] = [];
const counts = new Map<string, number>();
// The source lines as written (every key kept), in the order readTruthFile reads them.
const raw = fs
  .readFileSync(path.join(dir, 'truth.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.trim().startsWith('#'))
  .map((l) => JSON.parse(l) as Record<string, unknown>);
let index = 0;
for (const [k, e] of readTruthFile(dir).entries()) {
  if (!(e.kind in LAYOUTS)) continue;
  const rng = seededRandom(seed * 1000 + index);
  const image = await decodeImage(fs.readFileSync(path.join(dir, e.file)), 4e7);
  const { corners } = await placeCard(image, 0.12);
  const flat = await warpCard(image, corners, true);
  // The card at about the size the photo showed it (within what a phone photo of a card holds).
  const shown = Math.hypot(corners[1].x - corners[0].x, corners[1].y - corners[0].y);
  const cw = Math.round(Math.min(1000, Math.max(420, shown)));
  for (const p of [PLACEMENTS[index % 6], PLACEMENTS[(index + 3) % 6]]) {
    const name = `${path.basename(e.file, path.extname(e.file))}--${p}.jpg`;
    fs.writeFileSync(path.join(out, name), await make(rng, flat.rgb!, cw, p));
    lines.push(JSON.stringify({ ...raw[k], file: name, group: p }));
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  index++;
}
fs.writeFileSync(path.join(out, 'truth.jsonl'), lines.join('\n') + '\n');
console.log(`${lines.length} photos from ${index} cards of ${dir} (seed ${seed}) in ${out}`);
console.log([...counts.entries()].map(([p, n]) => `${p} ${n}`).join(', '));
