import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'face');

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
  return sharp(src)
    .rotate()
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 90 })
    .toBuffer();
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
  return sharp(src)
    .rotate()
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A face box in pixels of an upright photo. */
export interface PlacedBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A portrait put where users' photos put people, with where its face now is (pixels of the upright result). */
export interface Placement {
  name: string;
  image: Buffer;
  face: PlacedBox;
}

const turnBox = (b: PlacedBox, w: number, h: number, degrees: 90 | 180 | 270): PlacedBox => {
  // Clockwise turn of a w x h image: 90 sends (x, y) to (h - y, x); 180 to (w - x, h - y); 270 to (y, w - x).
  if (degrees === 90) return { x1: h - b.y2, y1: b.x1, x2: h - b.y1, y2: b.x2 };
  if (degrees === 180) return { x1: w - b.x2, y1: h - b.y2, x2: w - b.x1, y2: h - b.y1 };
  return { x1: b.y1, y1: w - b.x2, x2: b.y2, y2: w - b.x1 };
};

/**
 * The placements a user's photo gives a person (issue 14): small in a wide
 * shot, next to a blurred crowd (composited from `crowd`), turned by 90/180
 * degrees in its pixels with and without the EXIF orientation that undoes it,
 * and heavily downscaled. `face` is the subject's box in the upright portrait.
 */
export async function placements(portrait: Buffer, face: PlacedBox, crowd: Buffer): Promise<Placement[]> {
  const upright = await sharp(portrait).rotate().jpeg({ quality: 92 }).toBuffer();
  const { width: w, height: h } = await sharp(upright).metadata();
  const out: Placement[] = [];
  const scaleBox = (b: PlacedBox, k: number, dx: number, dy: number): PlacedBox => ({ x1: b.x1 * k + dx, y1: b.y1 * k + dy, x2: b.x2 * k + dx, y2: b.y2 * k + dy });

  // Small in a wide shot: the face about 120 px wide on a 3000x2000 scene, right of centre.
  {
    const W = 3000;
    const H = 2000;
    const k = Math.min(120 / (face.x2 - face.x1), (H * 0.9) / h!, (W * 0.3) / w!);
    const pw = Math.round(w! * k);
    const ph = Math.round(h! * k);
    const left = Math.round(W * 0.62);
    const top = Math.round(H * 0.95 - ph);
    const small = await sharp(upright).resize(pw, ph, { fit: 'fill' }).toBuffer();
    const image = await sharp({ create: { width: W, height: H, channels: 3, background: '#8796a5' } })
      .composite([
        { input: Buffer.from(`<svg width="${W}" height="${H}"><rect y="${H * 0.6}" width="${W}" height="${H * 0.4}" fill="#6b5d4f"/></svg>`) },
        { input: small, left, top },
      ])
      .jpeg({ quality: 88 })
      .toBuffer();
    out.push({ name: 'small in a wide shot', image, face: scaleBox(face, pw / w!, left, top) });
  }

  // Next to a blurred crowd (a red-carpet shot, 2500x2070): the crowd photo, scaled so its faces are about half the
  // person's face width (a quarter of its area) and blurred as a lens would, repeated across the frame; the person in front, right of centre.
  {
    const W = 2500;
    const H = 2070;
    const k = (H * 0.85) / h!;
    const pw = Math.min(Math.round(w! * k), Math.round(W * 0.6));
    const kk = pw / w!;
    const ph = Math.round(h! * kk);
    const faceW = (face.x2 - face.x1) * kk;
    const crowdMeta = await sharp(crowd).metadata();
    // The crowd photo's faces are about a fifth of its width.
    const cw = Math.round(Math.min(W, (faceW * 0.5) / 0.2));
    const ch = Math.round((crowdMeta.height! * cw) / crowdMeta.width!);
    const tile = await sharp(crowd)
      .resize(cw, ch)
      .blur(Math.max(2, cw * 0.008))
      .toBuffer();
    const tiles = Array.from({ length: Math.ceil(W / cw) }, (_, i) => ({ input: tile, left: i * cw, top: Math.max(0, Math.round(H * 0.55 - ch)) })).filter(
      (t) => t.left < W,
    );
    const bg = await sharp({ create: { width: W, height: H, channels: 3, background: '#2b2d33' } })
      .composite(tiles)
      .png()
      .toBuffer();
    const left = Math.round(W * 0.38);
    const top = H - ph;
    const person = await sharp(upright).resize(pw, ph, { fit: 'fill' }).toBuffer();
    const image = await sharp(bg)
      .composite([{ input: person, left, top }])
      .jpeg({ quality: 88 })
      .toBuffer();
    out.push({ name: 'next to a blurred crowd', image, face: scaleBox(face, kk, left, top) });
  }

  // Turned in its pixels, with no EXIF orientation (as some phones and editors save them)...
  for (const degrees of [90, 180] as const) {
    const image = await sharp(upright).rotate(degrees).jpeg({ quality: 92 }).toBuffer();
    out.push({ name: `turned ${degrees} without EXIF`, image, face: turnBox(face, w!, h!, degrees) });
  }
  // ...and with the EXIF orientation that turns it back upright (the engine must apply it).
  for (const [degrees, orientation] of [
    [270, 6],
    [180, 3],
  ] as const) {
    // Two steps: sharp resets the orientation tag of an image it turns itself.
    const turned = await sharp(upright).rotate(degrees).jpeg({ quality: 92 }).toBuffer();
    const image = await sharp(turned).withMetadata({ orientation }).jpeg({ quality: 92 }).toBuffer();
    out.push({ name: `turned ${degrees === 270 ? 90 : 180} with EXIF orientation ${orientation}`, image, face });
  }

  // Heavily downscaled: 240 px on the long side.
  {
    const k = 240 / Math.max(w!, h!);
    const image = await sharp(upright)
      .resize(Math.round(w! * k), Math.round(h! * k), { fit: 'fill' })
      .jpeg({ quality: 85 })
      .toBuffer();
    out.push({ name: 'downscaled to 240 px', image, face: scaleBox(face, k, 0, 0) });
  }
  return out;
}
