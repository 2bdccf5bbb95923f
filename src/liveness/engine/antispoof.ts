import { cropResize, type Box, type RgbImage } from '../../face/index.js';
import type { AntispoofInput } from '../config.js';

/**
 * The passive anti-spoof cue: a CNN that looks at one face (with a margin of
 * background around it) and says whether it is a live face or a
 * reproduction. Several published models share this shape and differ in
 * input size, margin and channel order; the operator may point the engine at
 * another one (SAOLA_LIVENESS_ANTISPOOF_MODEL / _INPUT).
 */
export interface AntispoofSpec {
  input: AntispoofInput;
  /** Square input side, pixels. */
  size: number;
  /** The face box is enlarged this much around its centre (shrunk when the frame is too small for it). */
  scale: number;
  /** Channel order of the input tensor. */
  order: 'rgb' | 'bgr';
  /** Which softmax output means "live face". */
  liveIndex: number;
  /** What the input is, for logs and /readyz. */
  describe: string;
}

export const ANTISPOOF_SPECS: Record<AntispoofInput, AntispoofSpec> = {
  // The committed pair (models/liveness): V2 and V1SE each on its own crop, their live probabilities averaged (the worker runs both).
  minifasnet: {
    input: 'minifasnet',
    size: 80,
    scale: 2.7,
    order: 'bgr',
    liveIndex: 1,
    describe: 'MiniFASNetV2 + MiniFASNetV1SE (committed), mean of their live probabilities',
  },
  // fr_liveness.onnx (faceplugin, committed): 1x3x128x128 RGB 0-255, box x2.7; class 0 = live (as the package's own demo reads it).
  faceplugin: { input: 'faceplugin', size: 128, scale: 2.7, order: 'rgb', liveIndex: 0, describe: '1x3x128x128 RGB 0-255, face box x2.7, class 0 live' },
  // MiniFASNet (Silent-Face-Anti-Spoofing, Apache-2.0): 1x3x80x80 BGR 0-255, box x2.7 (V2) or x4.0 (V1SE); class 1 = live.
  'minifasnet-v2': { input: 'minifasnet-v2', size: 80, scale: 2.7, order: 'bgr', liveIndex: 1, describe: '1x3x80x80 BGR 0-255, face box x2.7, class 1 live' },
  'minifasnet-v1se': { input: 'minifasnet-v1se', size: 80, scale: 4.0, order: 'bgr', liveIndex: 1, describe: '1x3x80x80 BGR 0-255, face box x4.0, class 1 live' },
};

/**
 * The square-ish crop the anti-spoof models were trained on: the box scaled
 * about its centre (less when the frame cannot hold it), shifted to stay
 * inside the frame, resized to size x size.
 */
export function antispoofCrop(img: RgbImage, box: Box, spec: Pick<AntispoofSpec, 'size' | 'scale'>): RgbImage {
  const bw = Math.max(1, box.x2 - box.x1);
  const bh = Math.max(1, box.y2 - box.y1);
  const scale = Math.min((img.height - 1) / bh, (img.width - 1) / bw, spec.scale);
  const w = bw * scale;
  const h = bh * scale;
  const cx = (box.x1 + box.x2) / 2;
  const cy = (box.y1 + box.y2) / 2;
  const x = Math.min(Math.max(0, cx - w / 2), img.width - 1 - w);
  const y = Math.min(Math.max(0, cy - h / 2), img.height - 1 - h);
  return cropResize(img, Math.max(0, x), Math.max(0, y), w, h, spec.size, spec.size);
}

/** The input tensor data (1x3xSxS, raw 0-255 values, planar) in the model's channel order. */
export function antispoofTensor(crop: RgbImage, order: 'rgb' | 'bgr'): Float32Array {
  const plane = crop.width * crop.height;
  const out = new Float32Array(plane * 3);
  const [r, g, b] = order === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  for (let i = 0, j = 0; i < plane; i++, j += 3) {
    out[r * plane + i] = crop.data[j];
    out[g * plane + i] = crop.data[j + 1];
    out[b * plane + i] = crop.data[j + 2];
  }
  return out;
}

/** Softmax of the logits, then the live class's probability. */
export function liveProbability(logits: Float32Array | number[], liveIndex: number): number {
  const m = Math.max(...logits);
  let sum = 0;
  const e = Array.from(logits, (v) => {
    const x = Math.exp(v - m);
    sum += x;
    return x;
  });
  return e[liveIndex] / sum;
}
