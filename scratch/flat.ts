import sharp from 'sharp';
import { makeSample } from '../bench/idcard-synth.js';
import { decodeImage } from '../src/reader/pipeline/decode.js';
import { locateCard } from '../src/reader/pipeline/locate.js';
import { warpCard } from '../src/reader/pipeline/warp.js';
import { CARD_WIDTH, CARD_HEIGHT, LAYOUTS, type CardKind } from '../src/reader/layouts.js';
const [seed, kind] = [Number(process.argv[2]), process.argv[3] as CardKind];
const s = await makeSample(seed, kind);
const image = await decodeImage(Buffer.from(s.photo.jpeg), 4e7);
const located = await locateCard(image.gray, image.width, image.height, 0.12);
if (process.argv[4]) located.corners = (await import('../src/reader/pipeline/refine.js')).refineCorners(image.gray, image.width, image.height, located.corners);
console.log(located.corners);
const flat = await warpCard(image, located.corners, false);
const g = Buffer.from(flat.gray);
for (const l of LAYOUTS[kind].lines) for (let x = l.x; x < l.x + l.w; x++) { g[l.y * CARD_WIDTH + x] = 0; g[(l.y + l.h) * CARD_WIDTH + x] = 128; }
await sharp(g, { raw: { width: CARD_WIDTH, height: CARD_HEIGHT, channels: 1 } }).png().toFile('/tmp/tt/flat.png');
await sharp(s.card?.png ?? Buffer.alloc(0)).toFile('/tmp/tt/card.png').catch(() => undefined);
