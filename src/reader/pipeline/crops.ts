/** Cuts bands out of the flat card and stacks them into one image, so one OCR call reads many fields. */
import sharp from 'sharp';
import { CARD_HEIGHT, CARD_WIDTH, type Box } from '../layouts.js';

export interface Stack {
  png: Buffer;
  /** Vertical extent of each band in the stacked image. */
  spans: { y0: number; y1: number; x0: number }[];
}

const GAP = 14;

export async function stackBands(gray: Buffer, boxes: Box[], scale = 1): Promise<Stack> {
  const clamp = (b: Box) => {
    const x = Math.max(0, Math.round(b.x));
    const y = Math.max(0, Math.round(b.y));
    return { x, y, w: Math.min(CARD_WIDTH - x, Math.round(b.w)), h: Math.min(CARD_HEIGHT - y, Math.round(b.h)) };
  };
  const bands = boxes.map(clamp);
  const width = Math.max(...bands.map((b) => b.w)) + 2 * GAP;
  const height = bands.reduce((s, b) => s + b.h + GAP, GAP);
  const out = Buffer.alloc(width * height, 255);
  const spans: Stack['spans'] = [];
  let top = GAP;
  for (const b of bands) {
    for (let r = 0; r < b.h; r++) gray.copy(out, (top + r) * width + GAP, (b.y + r) * CARD_WIDTH + b.x, (b.y + r) * CARD_WIDTH + b.x + b.w);
    spans.push({ y0: top * scale, y1: (top + b.h) * scale, x0: GAP * scale });
    top += b.h + GAP;
  }
  let img = sharp(out, { raw: { width, height, channels: 1 } });
  if (scale !== 1) img = img.resize(Math.round(width * scale), Math.round(height * scale));
  return { png: await img.png({ compressionLevel: 1 }).toBuffer(), spans };
}
