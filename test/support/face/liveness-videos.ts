/**
 * Generated selfie videos for the liveness tests and `npm run eval:liveness`:
 * scenes composed with sharp from face photos, animated and encoded by the
 * ffmpeg program (Debian or the npm-shipped one). A true live video cannot be
 * generated; the "live proxy" is different photos of one person joined by
 * cross-fades (see docs/face.md for what that can and cannot show).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { locateFfmpeg, runProgram } from '../../../src/platform/media/ffmpeg.js';

export type Motion = 'still' | 'pan' | 'zoom' | 'tilt' | 'shake' | 'leave';

export interface VideoOptions {
  width: number;
  height: number;
  fps: number;
  seconds: number;
  /** Container by file extension: mp4, mov, mkv, webm, avi, flv... */
  format?: string;
  /** Extra filter after the motion (e.g. `boxblur=6`). */
  filter?: string;
}

let binary: Promise<string> | undefined;
/** The ffmpeg program the server would use. */
export function ffmpegBinary(): Promise<string> {
  binary ??= locateFfmpeg('auto').then((f) => f.binary);
  return binary;
}

const encoder = (format: string) =>
  format === 'webm'
    ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M']
    : format === 'flv'
      ? ['-c:v', 'flv', '-q:v', '5']
      : format === 'avi'
        ? ['-c:v', 'mpeg4', '-q:v', '5']
        : ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23'];

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'saola-livegen-'));
  try {
    return await fn(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** How much larger than the frame the scene is drawn, so pan, zoom and tilt never show its edge. */
export const SCENE_MARGIN = 1.3;

/**
 * A scene: `photo` fitted to `faceShare` of the scene's height, centred (or
 * at `x`, 0-1) on a plain background, the scene SCENE_MARGIN times the frame
 * (`wide`: three frames wide, for a face that leaves the frame).
 */
export async function scene(
  photo: Buffer,
  opts: { width: number; height: number; faceShare?: number; background?: string; wide?: boolean; x?: number },
): Promise<Buffer> {
  const SW = Math.round(opts.width * SCENE_MARGIN * (opts.wide ? 2.5 : 1));
  const SH = Math.round(opts.height * SCENE_MARGIN);
  const h = Math.round(opts.height * (opts.faceShare ?? 0.9));
  const img = await sharp(photo).rotate().resize({ height: h, width: SW, fit: 'inside' }).toBuffer({ resolveWithObject: true });
  const left = Math.round((opts.x ?? 0.5) * SW - img.info.width / 2);
  return sharp({ create: { width: SW, height: SH, channels: 3, background: opts.background ?? '#6b7a88' } })
    .composite([{ input: img.data, left: Math.max(0, Math.min(SW - img.info.width, left)), top: Math.round((SH - img.info.height) / 2) }])
    .png()
    .toBuffer();
}

function motionFilter(motion: Motion, W: number, H: number): string {
  const cx = `(iw-${W})/2`;
  const cy = `(ih-${H})/2`;
  switch (motion) {
    case 'still':
      return `crop=${W}:${H}:${cx}:${cy}`;
    case 'pan':
      return `crop=${W}:${H}:x='${cx}+${cx}*0.8*sin(2*PI*t/3)':y='${cy}+${cy}*0.5*sin(2*PI*t/2.2)'`;
    case 'shake':
      return `crop=${W}:${H}:x='${cx}+${(W * 0.012).toFixed(1)}*sin(2*PI*t*1.7)+${(W * 0.008).toFixed(1)}*sin(2*PI*t*3.1)':y='${cy}+${(H * 0.012).toFixed(1)}*sin(2*PI*t*2.3)+${(H * 0.008).toFixed(1)}*cos(2*PI*t*4.3)'`;
    case 'zoom':
      throw new Error('zoom frames are drawn by zoomFrames');
    case 'tilt':
      return `rotate=a='0.12*sin(2*PI*t/2.5)':fillcolor=0x6b7a88,crop=${W}:${H}:${cx}:${cy}`;
    case 'leave':
      // The scene is 2.5 frames wide with the face in its middle: hold, then slide until the face is out.
      return `crop=${W}:${H}:x='${cx}+if(lt(t,1.5),0,min(1,(t-1.5)/2.5))*${cx}':y='${cy}'`;
  }
}

/**
 * The zoom's frames, drawn with sharp: the scene scaled by 1 + 0.15 sin(2 pi t / 3) (to an even width)
 * and the frame cut from its centre. ffmpeg's scale filter takes a time expression only from 5.0 on,
 * and the npm-shipped ffmpeg is older.
 */
async function* zoomFrames(sceneImage: Buffer, o: VideoOptions): AsyncGenerator<Uint8Array> {
  const { width: SW, height: SH } = await sharp(sceneImage).metadata();
  const count = Math.round(o.seconds * o.fps);
  for (let i = 0; i < count; i++) {
    const scale = 1 + 0.15 * Math.sin((2 * Math.PI * i) / o.fps / 3);
    const w = Math.trunc((SW! * scale) / 2) * 2;
    const h = Math.round((SH! * w) / SW! / 2) * 2;
    const { data } = await sharp(sceneImage)
      .resize(w, h, { fit: 'fill' })
      .extract({ left: Math.floor((w - o.width) / 2), top: Math.floor((h - o.height) / 2), width: o.width, height: o.height })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    yield data;
  }
}

/** A video of a still scene moved by `motion`, encoded by ffmpeg. */
export async function animate(sceneImage: Buffer, motion: Motion, o: VideoOptions): Promise<Buffer> {
  if (motion === 'zoom') return encodeFrames(zoomFrames(sceneImage, o), o);
  const ffmpeg = await ffmpegBinary();
  return inTemp(async (dir) => {
    const src = path.join(dir, 'scene.png');
    await fs.writeFile(src, sceneImage);
    const format = o.format ?? 'mp4';
    const out = path.join(dir, `out.${format}`);
    const vf = [motionFilter(motion, o.width, o.height), o.filter].filter(Boolean).join(',');
    await runProgram(
      ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-loop',
        '1',
        '-framerate',
        String(o.fps),
        '-i',
        src,
        '-t',
        String(o.seconds),
        '-vf',
        `${vf},format=yuv420p`,
        '-r',
        String(o.fps),
        ...encoder(format),
        out,
      ],
      { maxBuffer: 1 << 20, timeoutMs: 120_000 },
    );
    return fs.readFile(out);
  });
}

/** Encodes raw RGB frames (from a generator) with ffmpeg. */
export async function encodeFrames(frames: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, o: VideoOptions): Promise<Buffer> {
  const ffmpeg = await ffmpegBinary();
  return inTemp(async (dir) => {
    const format = o.format ?? 'mp4';
    const out = path.join(dir, `out.${format}`);
    const child = spawn(
      ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        '-s',
        `${o.width}x${o.height}`,
        '-r',
        String(o.fps),
        '-i',
        'pipe:0',
        ...(o.filter ? ['-vf', o.filter] : []),
        '-pix_fmt',
        'yuv420p',
        ...encoder(format),
        out,
      ],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const done = new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
    });
    for await (const f of frames) {
      if (!child.stdin.write(f)) await new Promise((r) => child.stdin.once('drain', r));
    }
    child.stdin.end();
    await done;
    return fs.readFile(out);
  });
}

/**
 * The live proxy: each photo (fitted to the frame, the same person) held for
 * a while with a slow drift, then cross-faded into the next.
 */
export async function crossFade(photos: Buffer[], o: VideoOptions & { background?: string }): Promise<Buffer> {
  const W = o.width;
  const H = o.height;
  const raws: Uint8Array[] = [];
  for (const p of photos) {
    // The photo whole, widened to the frame by repeating its edge pixels: no straight photo border in view.
    const img = await sharp(p)
      .rotate()
      .resize({ width: W, height: Math.round(H * 0.96), fit: 'inside' })
      .toBuffer({ resolveWithObject: true });
    const dx = W - img.info.width;
    const dy = H - img.info.height;
    const { data } = await sharp(img.data)
      .extend({ left: Math.floor(dx / 2), right: Math.ceil(dx / 2), top: Math.floor(dy / 2), bottom: Math.ceil(dy / 2), extendWith: 'copy' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    raws.push(new Uint8Array(data.buffer, data.byteOffset, data.length));
  }
  const total = Math.round(o.seconds * o.fps);
  // Short holds, long fades: the face changes shape most of the time, as a live one does.
  const per = total / Math.max(1, raws.length - 1);
  function* frames() {
    const out = new Uint8Array(W * H * 3);
    for (let f = 0; f < total; f++) {
      const pos = Math.min(raws.length - 1, f / per);
      const k = Math.min(raws.length - 1, Math.floor(pos));
      const next = raws[k + 1];
      const into = pos - k;
      // Hold the first and last 15% of each step, fade across the rest (smoothstep).
      const u = Math.max(0, Math.min(1, (into - 0.15) / 0.7));
      const a = next ? u * u * (3 - 2 * u) : 0;
      const cur = raws[k];
      if (a === 0) out.set(cur);
      else for (let i = 0; i < out.length; i++) out[i] = cur[i] + (next[i] - cur[i]) * a;
      yield out;
    }
  }
  return encodeFrames(frames(), o);
}

/** A printed photo: white paper margin, duller colours, a faint dot screen; lying on a darker background. */
export async function printed(photo: Buffer): Promise<Buffer> {
  const img = await sharp(photo).rotate().resize({ height: 900 }).modulate({ saturation: 0.8, brightness: 0.95 }).linear(0.85, 20).toBuffer({ resolveWithObject: true });
  const { width, height } = img.info;
  const dots = `<svg width="${width}" height="${height}"><defs><pattern id="d" width="4" height="4" patternUnits="userSpaceOnUse"><circle cx="2" cy="2" r="0.9" fill="#000" fill-opacity="0.12"/></pattern></defs><rect width="100%" height="100%" fill="url(#d)"/></svg>`;
  const face = await sharp(img.data)
    .composite([{ input: Buffer.from(dots) }])
    .png()
    .toBuffer();
  const m = Math.round(width * 0.08);
  return sharp({ create: { width: width + 2 * m, height: height + 2 * m, channels: 3, background: '#f4f1ea' } })
    .composite([{ input: face, left: m, top: m }])
    .png()
    .toBuffer();
}

/** A photo on a phone screen: black bezel, a moiré of fine interfering lines and a specular glare patch. */
export async function onScreen(photo: Buffer): Promise<Buffer> {
  const img = await sharp(photo).rotate().resize({ height: 900 }).toBuffer({ resolveWithObject: true });
  const { width, height } = img.info;
  const lines = `<svg width="${width}" height="${height}"><defs><pattern id="m" width="3" height="3" patternUnits="userSpaceOnUse" patternTransform="rotate(7)"><rect width="3" height="1.2" fill="#000" fill-opacity="0.22"/></pattern><radialGradient id="g" cx="0.68" cy="0.3" r="0.22"><stop offset="0" stop-color="#fff" stop-opacity="1"/><stop offset="0.5" stop-color="#fff" stop-opacity="0.85"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><rect width="100%" height="100%" fill="url(#m)"/><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  const screen = await sharp(img.data)
    .composite([{ input: Buffer.from(lines) }])
    .png()
    .toBuffer();
  const b = Math.round(width * 0.06);
  const bezel = `<svg width="${width + 2 * b}" height="${height + 3 * b}"><rect width="100%" height="100%" rx="${2 * b}" fill="#111"/></svg>`;
  return sharp(Buffer.from(bezel))
    .composite([{ input: screen, left: b, top: Math.round(1.5 * b) }])
    .png()
    .toBuffer();
}

/**
 * A head turned aside by `yawDegrees` (positive: the nose moves towards the
 * face's own right-hand image side, i.e. along the eye line from the left
 * eye to the right eye), drawn from a frontal photo with a cylindrical warp
 * in the face's own axes. `landmarks` are the photo's 68 points (pixels of
 * the EXIF-upright photo).
 *
 * The face is taken as a vertical cylinder (radius 1.1 inter-ocular
 * distances, axis behind the nose tip, along the face's vertical axis, so a
 * tilted head turns about its own axis): a surface point at angle phi seen
 * frontally at s = R sin(phi) is seen at R sin(phi + yaw) after the turn.
 * Only the head's rows turn (the warp fades out above the head and below the
 * chin). The far half is foreshortened and partly hidden behind the
 * silhouette, the near half widens; the background beside the near cheek is
 * pushed out to stay continuous. What a 2-D photo cannot give stays missing: the nose does
 * not protrude past the far cheek and no ear comes into view.
 */
export async function turned(photo: Buffer, landmarks: number[], yawDegrees = 60): Promise<Buffer> {
  const { data, info } = await sharp(photo).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const mean = (from: number, to: number, k: 0 | 1) => {
    let v = 0;
    for (let i = from; i < to; i++) v += landmarks[2 * i + k] / (to - from);
    return v;
  };
  const [lx, ly, rx, ry] = [mean(36, 42, 0), mean(36, 42, 1), mean(42, 48, 0), mean(42, 48, 1)];
  const iod = Math.hypot(rx - lx, ry - ly);
  // u: the face's horizontal axis (eye line), v: its vertical axis; origin at the nose tip.
  const ux = (rx - lx) / iod;
  const uy = (ry - ly) / iod;
  const [px, py] = [landmarks[60], landmarks[61]];
  const R = 1.1 * iod;
  const sign = yawDegrees < 0 ? -1 : 1;
  const theta = (Math.abs(yawDegrees) * Math.PI) / 180;
  const cos = Math.cos(theta);
  // Output s (along u, turned towards +s) -> source s, for the head's rows.
  const source = (s: number): number => {
    if (s >= R) return s;
    // Beside the near cheek (where the side of the head would come into view): the background, pushed out, the push fading over R.
    if (s <= -R * cos) return s - R * (1 - cos) * Math.max(0, 1 - (-R * cos - s) / R);
    return R * Math.sin(Math.asin(s / R) - theta);
  };
  // Only the head turns: full warp from the top of the head (2.4 inter-ocular distances above the nose tip) to the chin (1.3 below), fading over 0.6.
  const weight = (t: number) => Math.max(0, Math.min(1, 1 - Math.max(-2.4 * iod - t, t - 1.3 * iod) / (0.6 * iod)));
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const dx = x - px;
      const dy = y - py;
      const s = sign * (dx * ux + dy * uy);
      const t = -dx * uy + dy * ux;
      const w = weight(t);
      const ss = sign * (w > 0 ? s + w * (source(s) - s) : s);
      const sx = px + ss * ux - t * uy;
      const sy = py + ss * uy + t * ux;
      // Bilinear sample, edge pixels repeated.
      const x0 = Math.max(0, Math.min(W - 1, Math.floor(sx)));
      const y0 = Math.max(0, Math.min(H - 1, Math.floor(sy)));
      const x1 = Math.min(W - 1, x0 + 1);
      const y1 = Math.min(H - 1, y0 + 1);
      const fx = Math.max(0, Math.min(1, sx - x0));
      const fy = Math.max(0, Math.min(1, sy - y0));
      for (let c = 0; c < 3; c++) {
        const a = data[(y0 * W + x0) * 3 + c] * (1 - fx) + data[(y0 * W + x1) * 3 + c] * fx;
        const b = data[(y1 * W + x0) * 3 + c] * (1 - fx) + data[(y1 * W + x1) * 3 + c] * fx;
        out[(y * W + x) * 3 + c] = Math.round(a * (1 - fy) + b * fy);
      }
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/**
 * A face moving in front of a room that stays still: the head (an ellipse cut from `photo` around `box`, the
 * face's detector box in the EXIF-upright photo's pixels) drawn over a still, textured background and moved by
 * a slow sway. Not a live person either (the head is flat), but its surroundings do not move with it, as a
 * live person's do in front of a fixed camera; the scene cue (src/liveness/engine/scene.ts) is about exactly that.
 */
export async function faceOverRoom(photo: Buffer, box: { x1: number; y1: number; x2: number; y2: number }, o: VideoOptions): Promise<Buffer> {
  const W = o.width;
  const H = o.height;
  // The head: the box widened to take hair and chin, cut as an ellipse.
  const bw = box.x2 - box.x1;
  const bh = box.y2 - box.y1;
  const meta = await sharp(photo).rotate().metadata();
  const left = Math.max(0, Math.round(box.x1 - 0.15 * bw));
  const top = Math.max(0, Math.round(box.y1 - 0.25 * bh));
  const width = Math.min(meta.width! - left, Math.round(1.3 * bw));
  const height = Math.min(meta.height! - top, Math.round(1.4 * bh));
  const headH = Math.round(H * 0.6);
  const headW = Math.round((width * headH) / height);
  const ellipse = Buffer.from(
    `<svg width="${headW}" height="${headH}"><ellipse cx="${headW / 2}" cy="${headH / 2}" rx="${headW / 2}" ry="${headH / 2}" fill="#fff"/></svg>`,
  );
  const head = await sharp(photo)
    .rotate()
    .extract({ left, top, width, height })
    .resize(headW, headH, { fit: 'fill' })
    .ensureAlpha()
    .composite([{ input: ellipse, blend: 'dest-in' }])
    .png()
    .toBuffer();
  // The room: shelves, frames and spots of a fixed pseudo-random layout (no photo border anywhere).
  let seed = 17;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const shapes = Array.from({ length: 60 }, () => {
    const g = Math.round(40 + rnd() * 180);
    const fill = `rgb(${g},${Math.round(g * (0.7 + rnd() * 0.5))},${Math.round(g * (0.6 + rnd() * 0.5))})`;
    return rnd() < 0.5
      ? `<rect x="${(rnd() * W).toFixed(0)}" y="${(rnd() * H).toFixed(0)}" width="${(10 + rnd() * 90).toFixed(0)}" height="${(10 + rnd() * 60).toFixed(0)}" fill="${fill}"/>`
      : `<circle cx="${(rnd() * W).toFixed(0)}" cy="${(rnd() * H).toFixed(0)}" r="${(4 + rnd() * 30).toFixed(0)}" fill="${fill}"/>`;
  });
  const room = await sharp(Buffer.from(`<svg width="${W}" height="${H}"><rect width="100%" height="100%" fill="#8c8577"/>${shapes.join('')}</svg>`))
    .removeAlpha()
    .png()
    .toBuffer();
  const count = Math.round(o.seconds * o.fps);
  async function* frames() {
    for (let i = 0; i < count; i++) {
      const t = i / o.fps;
      const x = Math.round((W - headW) / 2 + W * 0.04 * Math.sin((2 * Math.PI * t) / 1.7));
      const y = Math.round((H - headH) / 2 + H * 0.03 * Math.sin((2 * Math.PI * t) / 2.3));
      const { data } = await sharp(room)
        .composite([{ input: head, left: x, top: y }])
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      yield new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
  }
  return encodeFrames(frames(), o);
}
