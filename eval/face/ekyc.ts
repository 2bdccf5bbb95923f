/**
 * The eKYC pair (issue 27): face match between an ID card's portrait, as
 * `/cmt` with `face=1` crops it, and a selfie of the same person. Generated:
 * for each person of a labelled set (`labels.csv`: file, identity) with at
 * least two photos, the first photo's face (head and shoulders, cut around the
 * box our detector finds) is printed into the portrait box of a generated card
 * (fixtures/cards/synth.ts: guilloche lines printed over the portrait, the card then
 * "photographed" with perspective, light, blur, noise and JPEG), the card is
 * read by the reader's own pipeline (`readCard` with `face: true`, which crops
 * the portrait box of the flattened card), and the cropped portrait is matched
 * against the person's other photos (genuine) and every photo of the other
 * people (impostors). The same pairs scored from the original photo, not
 * printed, are the baseline, so what the card costs is visible.
 *
 *   npx tsx eval/face/ekyc.ts --labels /work/shared/data/faces-dev [--people 41] [--seed 1] [--engine auto] [--dump DIR]
 *
 * --dump writes each card photo and the portrait cropped from it to DIR (to look at; never commit them).
 *
 * Reported apart from the photo-to-photo evaluation (eval/face/identities.ts):
 * these are synthetic cards around real faces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { analyze, decodeImage } from '../../src/face/engine/worker.js';
import { cosineToSimilarity, dot } from '../../src/face/engine/similarity.js';
import { readLabels, type LabelledPhoto } from './identity.js';
import { readCard } from '../../src/reader/pipeline/run.js';
import { chooseOcrEngine } from '../../src/reader/pipeline/ocr.js';
import { drawGuilloche, photograph, randomPerson, renderCard, seededRng, type Rng } from '../../fixtures/cards/synth.js';
import { CLASSIC_TEMPLATES, type ClassicKind } from '../../fixtures/cards/templates.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    labels: { type: 'string' },
    people: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    engine: { type: 'string', default: 'auto' },
    threshold: { type: 'string', default: '80' },
    dump: { type: 'string' },
  },
});
if (!values.labels) throw new Error('--labels <dir> is required');
const threshold = Number(values.threshold);
const FRONTS: ClassicKind[] = ['cmnd_09_front', 'cmnd_12_front', 'cccd_12_front', 'cccd_chip_front'];

async function jpegOf(file: string): Promise<Buffer> {
  const bytes = fs.readFileSync(file);
  return bytes[0] === 0xff && bytes[1] === 0xd8 ? bytes : sharp(bytes).jpeg({ quality: 95 }).toBuffer();
}

async function embedding(image: Buffer): Promise<{ embedding: Float32Array; faceWidth: number } | null> {
  const r = await analyze({ image, detectThreshold: 0.7, checkCard: false });
  if (!r.ok || !r.primary) return null;
  const b = r.primary.box;
  return { embedding: r.primary.embedding, faceWidth: (b.x2 - b.x1) / r.scale };
}

/** Head and shoulders around the detected face, the card portrait's aspect, as a printed portrait is framed. */
async function portraitOf(image: Buffer, w: number, h: number): Promise<Buffer | null> {
  const r = await analyze({ image, detectThreshold: 0.7, checkCard: false });
  if (!r.ok || !r.primary) return null;
  const { img } = await decodeImage(image);
  let src = sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } });
  if (r.rotation) src = sharp(await src.rotate(r.rotation).raw().toBuffer(), { raw: { width: r.width, height: r.height, channels: 3 } });
  const b = r.primary.box;
  const cx = (b.x1 + b.x2) / 2;
  const cy = (b.y1 + b.y2) / 2 + (b.y2 - b.y1) * 0.1;
  const cw = (b.x2 - b.x1) * 1.9;
  const ch = (cw * h) / w;
  const left = Math.round(cx - cw / 2);
  const top = Math.round(cy - ch / 2);
  // Outside the photo: its edge pixels repeated (a real portrait has a plain background there).
  const pad = {
    top: Math.max(0, -top),
    left: Math.max(0, -left),
    bottom: Math.max(0, top + Math.round(ch) - r.height),
    right: Math.max(0, left + Math.round(cw) - r.width),
  };
  const padded = await src
    .extend({ ...pad, extendWith: 'copy' })
    .raw()
    .toBuffer();
  return sharp(padded, { raw: { width: r.width + pad.left + pad.right, height: r.height + pad.top + pad.bottom, channels: 3 } })
    .extract({ left: left + pad.left, top: top + pad.top, width: Math.round(cw), height: Math.round(ch) })
    .resize(w, h)
    .modulate({ saturation: 0.8 })
    .linear(0.85, 20) // printed: less contrast, lifted blacks
    .png()
    .toBuffer();
}

/** A generated card with this portrait printed in its photo box and security lines printed over it (the card's guilloche pattern), photographed. */
async function cardWith(portrait: Buffer, kind: ClassicKind, rng: Rng): Promise<Buffer> {
  const box = CLASSIC_TEMPLATES[kind].photo!;
  const { png } = await renderCard(kind, randomPerson(rng), rng);
  const lines = `<svg xmlns="http://www.w3.org/2000/svg" width="${box.w}" height="${box.h}"><g transform="translate(${-box.x} ${-box.y})">${drawGuilloche(rng, '#7aa0b0')}</g></svg>`;
  const card = await sharp(png)
    .composite([
      { input: portrait, left: box.x, top: box.y },
      { input: Buffer.from(lines), left: box.x, top: box.y },
    ])
    .png()
    .toBuffer();
  return (await photograph(card, rng)).jpeg;
}

const { dir, photos } = readLabels(values.labels);
const byPerson = new Map<string, LabelledPhoto[]>();
for (const p of photos) byPerson.set(p.identity, [...(byPerson.get(p.identity) ?? []), p]);
const people = [...byPerson.keys()]
  .sort()
  .filter((id) => byPerson.get(id)!.length >= 2)
  .slice(0, Number(values.people));

const embedded = new Map<string, Float32Array | null>();
for (const p of photos) embedded.set(p.file, (await embedding(await jpegOf(path.join(dir, p.file))))?.embedding ?? null);

const ocr = chooseOcrEngine(values.engine as 'auto' | 'native' | 'js');
const rng = seededRng(Number(values.seed));
const counts = { cards: 0, notRead: 0, noFace: 0, smallFace: 0 };
const card = { genuine: [] as number[], impostor: [] as number[] };
const direct = { genuine: [] as number[], impostor: [] as number[] };
const widths: number[] = [];
for (const id of people) {
  const [first] = byPerson.get(id)!;
  const firstEmb = embedded.get(first.file);
  const kind = FRONTS[Math.floor(rng() * FRONTS.length)];
  const box = CLASSIC_TEMPLATES[kind].photo!;
  const portrait = await portraitOf(await jpegOf(path.join(dir, first.file)), box.w, box.h);
  if (!portrait || !firstEmb) continue;
  counts.cards++;
  const cardPhoto = await cardWith(portrait, kind, rng);
  const read = await readCard({ image: cardPhoto, face: true, maxPixels: 4e7, minCardArea: 0.12 }, ocr);
  const face = read.ok ? read.face : undefined;
  if (values.dump) {
    fs.mkdirSync(values.dump, { recursive: true });
    fs.writeFileSync(path.join(values.dump, `${id}-card.jpg`), cardPhoto);
    if (face) fs.writeFileSync(path.join(values.dump, `${id}-portrait.jpg`), face);
  }
  const e = face ? await embedding(Buffer.from(face)) : null;
  if (!read.ok || !face) counts.notRead++;
  else if (!e) counts.noFace++;
  else {
    widths.push(e.faceWidth);
    if (e.faceWidth < 40) counts.smallFace++;
  }
  for (const p of photos) {
    if (p.file === first.file) continue;
    const other = embedded.get(p.file);
    if (!other) continue;
    const list = p.identity === id ? 'genuine' : 'impostor';
    direct[list].push(dot(firstEmb, other));
    // A card whose portrait was not read or held no face counts as a refused pair (genuine: a miss; impostor: no match).
    card[list].push(e ? dot(e.embedding, other) : -1);
  }
}
await ocr.close();

const rate = (xs: number[]) => `${xs.filter((c) => c > -1 && cosineToSimilarity(c) * 100 >= threshold).length}/${xs.length}`;
const q = (xs: number[], p: number) => {
  const s = xs.filter((c) => c > -1).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3) : 'n/a';
};
widths.sort((a, b) => a - b);
console.log(`eKYC pairs (generated cards around real faces of ${dir}): ${counts.cards} people, seed ${values.seed}, OCR ${ocr.name}`);
console.log(
  `cards read with a portrait: ${counts.cards - counts.notRead}/${counts.cards}; portrait with no face found: ${counts.noFace}; face narrower than 40 px: ${counts.smallFace} (face width median ${widths[widths.length >> 1]?.toFixed(0) ?? 'n/a'} px)`,
);
for (const [name, s] of [
  ['card portrait vs the other photos', card],
  ['the same photo, not printed (baseline)', direct],
] as const) {
  console.log(
    `${name}: genuine matched at ${threshold}: ${rate(s.genuine)}; impostors matched: ${rate(s.impostor)}; genuine cosine p5/median ${q(s.genuine, 0.05)}/${q(s.genuine, 0.5)}; impostor cosine p99/max ${q(s.impostor, 0.99)}/${q(s.impostor, 1)}`,
  );
}
