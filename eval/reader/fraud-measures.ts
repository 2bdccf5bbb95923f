/**
 * `npx tsx eval/reader/fraud-measures.ts [dir]`: the fraud check's colour
 * (photocopy) and moiré (recapture) measurements on real ID photos (default
 * /work/shared/data/iddocs-dev, passports left out), on black-and-white
 * copies made from them (plain grey, and grey under a warm light), and on
 * screen photos made from them (the photo shown on an RGB-stripe screen,
 * photographed slightly turned and sampled by the sensor without
 * anti-aliasing, so the grid aliases into moiré). Prints each image's
 * measures and the rates at the configured thresholds.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { measureFraudTask } from '../../src/reader/fraud-measures.js';
import { checkingMeasures } from '../../src/reader/fraud-check.js';

const dir = process.argv[2] ?? '/work/shared/data/iddocs-dev';
const files = fs
  .readFileSync(path.join(dir, 'truth.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { file: string; kind: string })
  .filter((t) => t.kind !== 'passport')
  .map((t) => t.file);

/** A black-and-white copy; `warm`: photographed under a warm light (an even tint). */
async function photocopy(img: Buffer, warm: boolean): Promise<Buffer> {
  const grey = sharp(img).rotate().greyscale().normalise();
  return (warm ? grey.tint({ r: 255, g: 226, b: 190 }) : grey).jpeg({ quality: 88 }).toBuffer();
}

/**
 * The photo on a screen, photographed: each image pixel becomes a 3x3 block
 * of red, green and blue stripes with dark gaps (an LCD's subpixels), then
 * the camera sees it turned by 1.5 degrees and resamples it to `scale` of
 * the screen's size with slight defocus.
 */
async function screenPhoto(img: Buffer, scale: number): Promise<Buffer> {
  const { data, info } = await sharp(img).rotate().resize({ width: 900, withoutEnlargement: true }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = info.width * 3;
  const H = info.height * 3;
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const s = (Math.floor(y / 3) * info.width + Math.floor(x / 3)) * 3;
      const sub = x % 3;
      const gap = y % 3 === 2 ? 0.35 : 1;
      const o = (y * W + x) * 3;
      out[o + sub] = Math.round(data[s + sub] * gap);
    }
  }
  return (
    sharp(out, { raw: { width: W, height: H, channels: 3 } })
      .rotate(1.5, { background: '#101010' })
      .blur(0.5)
      // A camera's sensor samples the screen with little optical low-pass: nearest, so the grid aliases into moiré.
      .resize(Math.round(W * scale), undefined, { kernel: 'nearest' })
      .modulate({ brightness: 2.2 })
      .jpeg({ quality: 90 })
      .toBuffer()
  );
}

const task = (image: Buffer) => ({ image, maxPixels: 40_000_000, minCardArea: 0.12 });
const rows: { group: string; file: string; spread: number; moire: number; photocopied: boolean; recaptured: boolean }[] = [];
for (const f of files) {
  const real = fs.readFileSync(path.join(dir, f));
  const variants: [string, Buffer][] = [
    ['real photo', real],
    ['grey copy', await photocopy(real, false)],
    ['grey copy, warm light', await photocopy(real, true)],
    ['screen photo 0.45x', await screenPhoto(real, 0.45)],
    ['screen photo 0.7x', await screenPhoto(real, 0.7)],
  ];
  for (const [group, image] of variants) {
    const out = await measureFraudTask(task(image));
    if (!out.ok) {
      console.log(`${f} | ${group} | refused ${out.code}`);
      continue;
    }
    const c = checkingMeasures(out.measures);
    rows.push({
      group,
      file: f,
      spread: out.measures.colourSpread,
      moire: out.measures.moire,
      photocopied: c.photocopied.result === '1',
      recaptured: c.recaptured.result === '1',
    });
  }
}
console.log('group | file | colour spread | moire | photocopied | recaptured');
for (const r of rows) console.log(`${r.group} | ${r.file} | ${r.spread} | ${r.moire.toFixed(2)} | ${r.photocopied ? 1 : 0} | ${r.recaptured ? 1 : 0}`);
console.log('\ngroup | images | called photocopied | called recaptured');
for (const g of [...new Set(rows.map((r) => r.group))]) {
  const rs = rows.filter((r) => r.group === g);
  console.log(`${g} | ${rs.length} | ${rs.filter((r) => r.photocopied).length} | ${rs.filter((r) => r.recaptured).length}`);
}
