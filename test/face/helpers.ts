import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A committed fixture (see fixtures/SOURCES.md). */
export function fixture(name: string): Buffer {
  return fs.readFileSync(path.join(dir, name));
}

/** Genuine variants of one photo: rotation, light, blur, JPEG quality, crop, mirror. */
export async function augment(src: Buffer): Promise<Record<string, Buffer>> {
  const meta = await sharp(src).metadata();
  const w = meta.width!;
  const h = meta.height!;
  return {
    rotated: await sharp(src).rotate(12, { background: '#808080' }).jpeg({ quality: 85 }).toBuffer(),
    brighter: await sharp(src).modulate({ brightness: 1.35 }).jpeg({ quality: 85 }).toBuffer(),
    darker: await sharp(src).modulate({ brightness: 0.6 }).jpeg({ quality: 85 }).toBuffer(),
    blurred: await sharp(src).blur(2).jpeg({ quality: 85 }).toBuffer(),
    lowQuality: await sharp(src).jpeg({ quality: 25 }).toBuffer(),
    cropped: await sharp(src)
      .extract({ left: Math.round(w * 0.08), top: Math.round(h * 0.06), width: Math.round(w * 0.86), height: Math.round(h * 0.88) })
      .jpeg({ quality: 85 })
      .toBuffer(),
    mirrored: await sharp(src).flop().jpeg({ quality: 85 }).toBuffer(),
  };
}

/** The photo with dark glasses drawn over the eyes (for the 406 gate). */
export async function withSunglasses(src: Buffer, eyes: { left: [number, number]; right: [number, number] }, scale = 1): Promise<Buffer> {
  const meta = await sharp(await sharp(src).rotate().toBuffer()).metadata();
  const [lx, ly] = eyes.left.map((v) => v * scale);
  const [rx, ry] = eyes.right.map((v) => v * scale);
  const r = (rx - lx) * 0.42;
  const svg = `<svg width="${meta.width}" height="${meta.height}"><ellipse cx="${lx}" cy="${ly}" rx="${r}" ry="${r * 0.8}" fill="#111"/><ellipse cx="${rx}" cy="${ry}" rx="${r}" ry="${r * 0.8}" fill="#111"/><line x1="${lx + r}" y1="${ly}" x2="${rx - r}" y2="${ry}" stroke="#111" stroke-width="4"/></svg>`;
  return sharp(src).rotate().composite([{ input: Buffer.from(svg) }]).jpeg({ quality: 90 }).toBuffer();
}

/** A photo of an ID card: a light card with the portrait on its left and text lines, lying on a dark desk. */
export async function idCardPhoto(portrait: Buffer): Promise<Buffer> {
  const W = 1280;
  const H = 960;
  const cw = 900;
  const ch = Math.round(cw / 1.586);
  const face = await sharp(portrait).resize(230, 300, { fit: 'cover' }).toBuffer();
  const lines = Array.from({ length: 7 }, (_, i) => `<rect x="300" y="${130 + i * 55}" width="${520 - (i % 3) * 90}" height="18" fill="#333"/>`).join('');
  const card = await sharp(
    Buffer.from(
      `<svg width="${cw}" height="${ch}"><rect width="${cw}" height="${ch}" rx="28" fill="#e8ecef"/><rect x="40" y="30" width="${cw - 80}" height="40" fill="#b03030"/>${lines}</svg>`,
    ),
  )
    .composite([{ input: face, left: 40, top: 130 }])
    .png()
    .toBuffer();
  return sharp({ create: { width: W, height: H, channels: 3, background: '#3a3026' } })
    .composite([{ input: card, left: Math.round((W - cw) / 2), top: Math.round((H - ch) / 2) }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** The photo with a light-blue face mask drawn from the jaw line up to the nose bridge (68-point landmarks, pixels of `src`). */
export async function withMask(src: Buffer, landmarks: number[], scale = 1): Promise<Buffer> {
  const meta = await sharp(await sharp(src).rotate().toBuffer()).metadata();
  const pts = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 28].map((i) => `${landmarks[2 * i] * scale},${landmarks[2 * i + 1] * scale}`).join(' ');
  const svg = `<svg width="${meta.width}" height="${meta.height}"><polygon points="${pts}" fill="#9cc8e8"/></svg>`;
  return sharp(src).rotate().composite([{ input: Buffer.from(svg) }]).jpeg({ quality: 90 }).toBuffer();
}
