import sharp from 'sharp';
import { makeSample, ALL_KINDS } from '../bench/idcard-synth.js';
import { decodeImage } from '../src/reader/pipeline/decode.js';
import { locateCard } from '../src/reader/pipeline/locate.js';
for (const seed of process.argv.slice(2).map(Number)) {
  const kind = ALL_KINDS[(seed - 13000) % 8];
  const s = await makeSample(seed, kind);
  const image = await decodeImage(Buffer.from(s.photo.jpeg), 4e7);
  const c = (await locateCard(image.gray, image.width, image.height, 0.12)).corners;
  console.log(seed, 'found', c.map((p) => `${p.x.toFixed(0)},${p.y.toFixed(0)}`).join(' '), 'truth', s.photo.corners.map((p) => `${p.x.toFixed(0)},${p.y.toFixed(0)}`).join(' '), image.width, image.height);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}"><polygon points="${c.map((p) => `${p.x},${p.y}`).join(' ')}" fill="none" stroke="red" stroke-width="4"/><polygon points="${s.photo.corners.map((p) => `${p.x},${p.y}`).join(' ')}" fill="none" stroke="lime" stroke-width="2"/></svg>`;
  await sharp(Buffer.from(s.photo.jpeg)).composite([{ input: Buffer.from(svg) }]).resize(700).toFile(`/tmp/tt/why-${seed}.png`);
}
