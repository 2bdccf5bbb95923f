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
import sharp from 'sharp';
import { seededRandom } from '../../src/platform/random.js';
import { decodeImage } from '../../src/reader/pipeline/decode.js';
import { placeCard } from '../../src/reader/pipeline/run.js';
import { warpCard } from '../../src/reader/pipeline/warp.js';
import { CARD_HEIGHT, CARD_WIDTH, LAYOUTS } from '../../src/reader/layouts.js';
import { readTruthFile } from './score.js';

type Rng = () => number;

const PLACEMENTS = ['turned30-white', 'turned90-wood', 'turned180-checks', 'turned270-stripes', 'small-noise', 'tight-finger'] as const;
type Placement = (typeof PLACEMENTS)[number];
type Texture = 'white' | 'wood' | 'checks' | 'stripes' | 'noise';

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

/** A background of `w` x `h` RGB pixels with the texture asked for. */
function background(rng: Rng, w: number, h: number, texture: Texture): Buffer {
  const out = Buffer.alloc(w * h * 3);
  const hue = () => [rng(), rng(), rng()].map((v) => 40 + v * 160);
  const [a, b] = [hue(), hue()];
  const angle = rng() * Math.PI;
  const period = 8 + rng() * 30;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  // Low-frequency blotches: a few random bumps.
  const bumps = Array.from({ length: 6 }, () => ({ x: rng() * w, y: rng() * h, r: (0.1 + rng() * 0.3) * w, s: (rng() - 0.5) * 70 }));
  const grain = Array.from({ length: 12 }, () => ({ f: 0.002 + rng() * 0.02, p: rng() * 6.28, a: rng() * 8 }));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let c: number[];
      const noise = (rng() - 0.5) * 24;
      if (texture === 'white') {
        const shade = 242 - (y / h) * 18 + noise * 0.4;
        c = [shade, shade, shade - 3];
      } else if (texture === 'wood') {
        // Grain: rings along the planks, bent by slow waves.
        let wave = 0;
        for (const g of grain) wave += g.a * Math.sin(x * g.f + g.p);
        const ring = Math.sin((y + wave) / (2 + (period % 5))) * 0.5 + 0.5;
        const seam = (y + 3 * Math.sin(x / 90)) % Math.round(h / 4) < 3 ? 0.45 : 1;
        c = [150 - 50 * ring, 95 - 35 * ring, 55 - 25 * ring].map((v) => v * seam + noise * 0.5);
      } else if (texture === 'checks') {
        // Gingham: bands across and along, their crossings darker, a fine weave on top.
        const u = Math.floor((x * cos + y * sin) / period) % 2 === 0;
        const v = Math.floor((-x * sin + y * cos) / period) % 2 === 0;
        const k = (u ? 0.5 : 0) + (v ? 0.5 : 0);
        const weave = (x + y) % 3 === 0 ? 12 : 0;
        c = a.map((av, i) => av * (1 - k) + b[i] * k * 0.6 - weave + noise);
      } else if (texture === 'stripes') {
        const s = Math.floor((x * cos + y * sin) / period) % 3;
        c = (s === 0 ? a : s === 1 ? b : [235, 235, 230]).map((v) => v + noise);
      } else {
        let blot = 0;
        for (const p of bumps) blot += p.s * Math.exp(-((x - p.x) ** 2 + (y - p.y) ** 2) / (p.r * p.r));
        c = a.map((v) => v + blot + noise * 2);
      }
      const i = (y * w + x) * 3;
      out[i] = Math.max(0, Math.min(255, c[0]));
      out[i + 1] = Math.max(0, Math.min(255, c[1]));
      out[i + 2] = Math.max(0, Math.min(255, c[2]));
    }
  }
  return out;
}

/** The flat card (RGB, CARD_WIDTH x CARD_HEIGHT) scaled to `cw` pixels wide and turned by `degrees`, on transparency. */
async function turnedCard(flat: Buffer, cw: number, degrees: number): Promise<{ png: Buffer; w: number; h: number }> {
  const ch = Math.round((cw * CARD_HEIGHT) / CARD_WIDTH);
  const { data, info } = await sharp(flat, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3 } })
    .resize(cw, ch)
    .ensureAlpha()
    .rotate(degrees, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, w: info.width, h: info.height };
}

/** The card turned by `degrees`, a sixth (or `share`) of the photo's area, somewhere on a `texture` background. */
async function placed(rng: Rng, flat: Buffer, cw: number, degrees: number, texture: Texture, share: number): Promise<Buffer> {
  const ch = (cw * CARD_HEIGHT) / CARD_WIDTH;
  const area = (cw * ch) / share;
  const W = Math.round(Math.sqrt(area * (4 / 3)));
  const H = Math.round(W * 0.75);
  const card = await turnedCard(flat, cw, degrees);
  const left = Math.round((W - card.w) * (0.1 + 0.8 * rng()));
  const top = Math.round((H - card.h) * (0.1 + 0.8 * rng()));
  return sharp(background(rng, W, H, texture), { raw: { width: W, height: H, channels: 3 } })
    .composite([{ input: card.png, left: Math.max(0, left), top: Math.max(0, top) }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The card filling the photo, 3-8% cut off two adjacent edges, a finger-like skin blob over another edge. */
async function tightCrop(rng: Rng, flat: Buffer, cw: number): Promise<Buffer> {
  const ch = Math.round((cw * CARD_HEIGHT) / CARD_WIDTH);
  const margin = Math.round(0.04 * cw);
  const W = cw + 2 * margin;
  const H = ch + 2 * margin;
  const card = await sharp(flat, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 3 } })
    .resize(cw, ch)
    .png()
    .toBuffer();
  const skin = `hsl(${Math.round(18 + rng() * 12)}, ${Math.round(35 + rng() * 25)}%, ${Math.round(55 + rng() * 20)}%)`;
  // The finger comes in over the bottom or the left edge, a tenth of the card long.
  const fromBottom = rng() < 0.5;
  const fx = fromBottom ? margin + cw * (0.2 + 0.6 * rng()) : margin;
  const fy = fromBottom ? margin + ch : margin + ch * (0.2 + 0.6 * rng());
  const finger = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><ellipse cx="${fx}" cy="${fy}" rx="${fromBottom ? 0.05 * cw : 0.1 * cw}" ry="${fromBottom ? 0.1 * cw : 0.05 * cw}" fill="${skin}"/></svg>`;
  const scene = await sharp(background(rng, W, H, 'noise'), { raw: { width: W, height: H, channels: 3 } })
    .composite([{ input: card, left: margin, top: margin }, { input: Buffer.from(finger) }])
    .png()
    .toBuffer();
  // Cut 3-8% of the card off the top or bottom, and off the left or right.
  const cutX = Math.round(cw * (0.03 + 0.05 * rng()));
  const cutY = Math.round(ch * (0.03 + 0.05 * rng()));
  const cutLeft = rng() < 0.5;
  const cutTop = rng() < 0.5;
  const left = cutLeft ? margin + cutX : 0;
  const top = cutTop ? margin + cutY : 0;
  const right = cutLeft ? W : margin + cw - cutX;
  const bottom = cutTop ? H : margin + ch - cutY;
  return sharp(scene)
    .extract({ left, top, width: right - left, height: bottom - top })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function make(rng: Rng, flat: Buffer, cw: number, p: Placement): Promise<Buffer> {
  const jitter = (rng() - 0.5) * 6;
  switch (p) {
    case 'turned30-white':
      return placed(rng, flat, cw, (rng() < 0.5 ? 30 : -30) + jitter, 'white', 1 / 6);
    case 'turned90-wood':
      return placed(rng, flat, cw, 90 + jitter, 'wood', 1 / 4);
    case 'turned180-checks':
      return placed(rng, flat, cw, 180 + jitter, 'checks', 1 / 4);
    case 'turned270-stripes':
      return placed(rng, flat, cw, 270 + jitter, 'stripes', 1 / 4);
    case 'small-noise':
      return placed(rng, flat, cw, jitter * 2, 'noise', 1 / 6);
    case 'tight-finger':
      return tightCrop(rng, flat, cw);
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
