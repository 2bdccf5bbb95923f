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
    // Stretch each band so its paper is white: Tesseract binarises the whole stack at once,
    // and a grey band next to white gaps would otherwise turn black.
    const hist = new Array<number>(256).fill(0);
    for (let r = 0; r < b.h; r++) for (let c = 0; c < b.w; c++) hist[gray[(b.y + r) * CARD_WIDTH + b.x + c]]++;
    const total = b.w * b.h;
    const pct = (q: number) => {
      let acc = 0;
      for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * total) return v;
      return 255;
    };
    const lo = pct(0.01);
    const hi = Math.max(lo + 16, pct(0.6));
    const lut = Buffer.alloc(256);
    for (let v = 0; v < 256; v++) lut[v] = Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / (hi - lo))));
    for (let r = 0; r < b.h; r++) {
      const src = (b.y + r) * CARD_WIDTH + b.x;
      const dst = (top + r) * width + GAP;
      for (let c = 0; c < b.w; c++) out[dst + c] = lut[gray[src + c]];
    }
    spans.push({ y0: top * scale, y1: (top + b.h) * scale, x0: GAP * scale });
    top += b.h + GAP;
  }
  let img = sharp(out, { raw: { width, height, channels: 1 } });
  if (scale !== 1) img = img.resize(Math.round(width * scale), Math.round(height * scale));
  return { png: await img.png({ compressionLevel: 1 }).toBuffer(), spans };
}
