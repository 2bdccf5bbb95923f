/**
 * The reader's own Vietnamese text-line recogniser: a small CRNN with CTC (models/line-recogniser, trained in this
 * repository on generated card lines by scripts/line-recogniser/), run in onnxruntime-node, one thread, one session
 * per worker thread. Unlike PP-OCR's recogniser (recognise.ts) it spells Vietnamese: every tone mark in capitals
 * and small letters, digits and the cards' punctuation. It reads one value line cut from the flat card.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import type { Box } from '../layouts.js';
import { cropGray } from './detect.js';
import { ctcGreedy, type LineReading } from './recognise.js';

/** Reads text lines cut from a gray image. */
export interface LineRecogniser {
  /** Each box of the gray image (`width` x `height`) read as one line, in the boxes' order. */
  readLines(gray: Buffer | Uint8Array, width: number, height: number, boxes: readonly Box[]): Promise<LineReading[]>;
}

/** The committed network and its alphabet (scripts/line-recogniser/train.py writes both and SHA256SUMS). */
export const LINE_MODEL = {
  file: 'vi-line-crnn.onnx',
  sha256: 'b54f2323618bb9db6e5015276a1ff52166a6dc2f25443fdd6bf2bc565b495673',
  charset: 'charset.txt',
} as const;
/** The network's input height, and the widest input (a longer line is squeezed into it), as it was trained. */
const HEIGHT = 32;
const MAX_WIDTH = 800;
/** The contrast stretch: ink at this quantile of a line's pixels, paper at its complement; at least MIN_SPAN levels apart. */
const STRETCH_QUANTILE = 0.02;
const MIN_SPAN = 32;

/** models/line-recogniser of the repository: walks up from this module (works from src/ under tsx and from dist/). */
export function lineModelDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, 'models', 'line-recogniser');
    if (fs.existsSync(path.join(candidate, LINE_MODEL.file))) return candidate;
    dir = path.dirname(dir);
  }
  return path.resolve('models', 'line-recogniser');
}

/**
 * Whether the committed network is there and unaltered (its sha256 the committed one), for the start-up log and
 * /readyz: without it the name stage is skipped and Tesseract's readings stand.
 */
export function checkLineModel(dir = lineModelDir(), sha256: string = LINE_MODEL.sha256): { ok: true } | { ok: false; why: string } {
  const file = path.join(dir, LINE_MODEL.file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return { ok: false, why: `${file} is missing` };
  }
  const why = shaMismatch(file, bytes, sha256);
  return why === undefined ? { ok: true } : { ok: false, why };
}

/** How the network's file differs from the committed one (its sha256), or undefined when it does not. */
function shaMismatch(file: string, bytes: Buffer, sha256: string): string | undefined {
  const sha = createHash('sha256').update(bytes).digest('hex');
  return sha === sha256 ? undefined : `${file} has sha256 ${sha}, expected ${sha256}`;
}

/** Python's round(): halves to even (the trainer sized its inputs with it). */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * One pass of Pillow's bilinear resampling along rows (`horizontal`) or columns: a triangle filter widened by the
 * reduction factor, so a line shrunk to the network's height is averaged as the trainer's Pillow averaged it.
 */
function resamplePass(src: Uint8Array, w: number, h: number, out: number, horizontal: boolean): Uint8Array {
  const inSize = horizontal ? w : h;
  const scale = inSize / out;
  const filterScale = Math.max(scale, 1);
  const support = filterScale;
  const dst = new Uint8Array(horizontal ? out * h : w * out);
  for (let o = 0; o < out; o++) {
    const center = (o + 0.5) * scale;
    const lo = Math.max(Math.trunc(center - support + 0.5), 0);
    const hi = Math.min(Math.trunc(center + support + 0.5), inSize);
    const weights: number[] = [];
    let total = 0;
    for (let i = lo; i < hi; i++) {
      const k = Math.max(0, 1 - Math.abs((i - center + 0.5) / filterScale));
      weights.push(k);
      total += k;
    }
    if (total > 0) for (let i = 0; i < weights.length; i++) weights[i] /= total;
    const lines = horizontal ? h : w;
    for (let l = 0; l < lines; l++) {
      let acc = 0;
      for (let i = lo; i < hi; i++) acc += weights[i - lo] * (horizontal ? src[l * w + i] : src[i * w + l]);
      const v = Math.max(0, Math.min(255, Math.round(acc)));
      if (horizontal) dst[l * out + o] = v;
      else dst[o * w + l] = v;
    }
  }
  return dst;
}

/**
 * A gray line crop as the network's input: scaled to 32 px tall (aspect kept, at most MAX_WIDTH wide), contrast
 * stretched between its 2nd and 98th percentiles, ink 1 and paper 0 (train.py's `to_input`). Answers the pixels,
 * row-major, `width` wide.
 */
export function lineInput(crop: Uint8Array, w: number, h: number): { pixels: Float32Array; width: number } {
  const width = Math.max(8, Math.min(MAX_WIDTH, roundHalfEven((w * HEIGHT) / h)));
  const rows = resamplePass(crop, w, h, width, true);
  const small = resamplePass(rows, width, h, HEIGHT, false);
  const sorted = Uint8Array.from(small).sort();
  const n = sorted.length - 1;
  const lo = sorted[Math.trunc(STRETCH_QUANTILE * n)];
  const hi = sorted[Math.trunc((1 - STRETCH_QUANTILE) * n)];
  const span = Math.max(MIN_SPAN, hi - lo);
  const pixels = new Float32Array(small.length);
  for (let i = 0; i < small.length; i++) pixels[i] = Math.min(1, Math.max(0, (hi - small[i]) / span));
  return { pixels, width };
}

/** The network's alphabet: class 0 is CTC's blank, class i + 1 the i-th character of charset.txt (a JSON string). */
function readCharset(dir: string): string[] {
  return ['', ...Array.from(JSON.parse(fs.readFileSync(path.join(dir, LINE_MODEL.charset), 'utf8')) as string)];
}

const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

/** The committed recogniser, its file's sha256 checked before it is loaded. */
export class OnnxLineRecogniser implements LineRecogniser {
  private session?: Promise<{ session: ort.InferenceSession; names: string[] }>;

  constructor(
    private readonly dir = lineModelDir(),
    private readonly sha256: string = LINE_MODEL.sha256,
  ) {}

  private load(): Promise<{ session: ort.InferenceSession; names: string[] }> {
    this.session ??= (async () => {
      const file = path.join(this.dir, LINE_MODEL.file);
      const bytes = await fs.promises.readFile(file);
      const why = shaMismatch(file, bytes, this.sha256);
      if (why !== undefined) throw new Error(`line recogniser altered: ${why}`);
      return { session: await ort.InferenceSession.create(bytes, SESSION_OPTIONS), names: readCharset(this.dir) };
    })();
    // A failed load is not kept: the caller goes on without the network, and a later call may try again.
    this.session.catch(() => (this.session = undefined));
    return this.session;
  }

  async readLines(gray: Buffer | Uint8Array, width: number, height: number, boxes: readonly Box[]): Promise<LineReading[]> {
    if (boxes.length === 0) return [];
    const { session, names } = await this.load();
    const inputs = boxes.map((b) => {
      const { crop, w, h } = cropGray(gray, width, height, b);
      return lineInput(crop, w, h);
    });
    // The network halves the width twice: a multiple of 4 keeps every column; lines are padded with paper (0).
    const batchW = Math.ceil(Math.max(...inputs.map((i) => i.width)) / 4) * 4;
    const plane = HEIGHT * batchW;
    const data = new Float32Array(boxes.length * plane);
    inputs.forEach(({ pixels, width: w }, n) => {
      for (let y = 0; y < HEIGHT; y++) data.set(pixels.subarray(y * w, (y + 1) * w), n * plane + y * batchW);
    });
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', data, [boxes.length, 1, HEIGHT, batchW]) });
    const scores = out[session.outputNames[0]];
    const [, steps, k] = scores.dims as number[];
    if (k !== names.length) throw new Error(`line recogniser: ${k} classes, alphabet ${names.length}`);
    // The network answers log-probabilities; CTC's greedy decoding wants probabilities.
    const probs = Float32Array.from(scores.data as Float32Array, Math.exp);
    // Each line's own steps only (a quarter of its width, as trained), not the padding after it.
    return inputs.map((input, n) => ctcGreedy(probs, n * steps * k, Math.min(steps, Math.floor(input.width / 4)), k, names));
  }
}
