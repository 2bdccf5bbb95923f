import * as ort from 'onnxruntime-node';
import { ARCFACE_112, umeyama, invertAffine, fivePoints, type Point2 } from './align.js';
import { warpAffine, type RgbImage } from './image.js';

/**
 * A face recogniser: an ONNX graph taking one aligned face and answering its
 * embedding. The shipped one is faceplugin's fr_feature; an operator installs
 * others (`saola models add face`, models.ts) described by the same fields,
 * read from the graph's input and output shapes or stated in its manifest.
 */
export interface RecogniserSpec {
  /** The name stored with every embedding it makes (face_embeddings.model). */
  name: string;
  /** Absolute path of the .onnx file. */
  file: string;
  /** sha256 of the file, checked before a session is made from it. */
  sha256: string;
  input: {
    name: string;
    width: number;
    height: number;
    /** Where the tensor's channel axis is: [1, 3, H, W] or [1, H, W, 3]. */
    layout: 'nchw' | 'nhwc';
    /** Channel order of the tensor. */
    colour: 'rgb' | 'bgr';
    /** (pixel - mean) / std per channel, in the tensor's channel order. */
    mean: [number, number, number];
    std: [number, number, number];
    /** The 5 points (eyes, nose tip, mouth corners) the face is aligned onto, in input pixels. */
    template: Point2[];
  };
  output: { name: string; size: number };
}

/**
 * The aligned crop kept for every enrolled face: the ArcFace 112 template at
 * its own scale with a 24-pixel margin, so a recogniser with another template
 * or input size is fed by a warp of the crop, and the shipped recogniser's input
 * is the crop's centre exactly.
 */
export const CROP_SIZE = 160;
const CROP_MARGIN = (CROP_SIZE - 112) / 2;
export const CROP_TEMPLATE: readonly Point2[] = ARCFACE_112.map(([x, y]) => [x + CROP_MARGIN, y + CROP_MARGIN]);

/** The face of `img` with 68 landmarks `lm`, aligned into the kept crop. */
export function alignCrop(img: RgbImage, lm: number[]): RgbImage {
  return warpAffine(img, invertAffine(umeyama(fivePoints(lm), CROP_TEMPLATE)), CROP_SIZE, CROP_SIZE);
}

/** ArcFace's template for an input of width x height (its 112x112 points scaled). */
export function scaledArcFaceTemplate(width: number, height: number): Point2[] {
  return ARCFACE_112.map(([x, y]) => [(x * width) / 112, (y * height) / 112]);
}

/** The recogniser's input tensor for a kept crop: warped onto its template, normalised, in its layout and channel order. */
export function recogniserInput(spec: RecogniserSpec, crop: RgbImage): ort.Tensor {
  const { width, height, layout, colour, mean, std, template } = spec.input;
  const face = warpAffine(crop, invertAffine(umeyama(CROP_TEMPLATE, template)), width, height);
  const plane = width * height;
  const data = new Float32Array(plane * 3);
  const order = colour === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) {
      const v = (face.data[i * 3 + order[c]] - mean[c]) / std[c];
      data[layout === 'nchw' ? c * plane + i : i * 3 + c] = v;
    }
  }
  return new ort.Tensor('float32', data, layout === 'nchw' ? [1, 3, height, width] : [1, height, width, 3]);
}

/** L2-normalised embedding and its length before normalisation (0 for a zero or non-finite output). */
export function normalised(raw: Float32Array): { embedding: Float32Array; norm: number } {
  let norm = 0;
  for (let i = 0; i < raw.length; i++) norm += raw[i] * raw[i];
  norm = Math.sqrt(norm);
  if (!Number.isFinite(norm) || norm === 0) return { embedding: new Float32Array(raw.length), norm: Number.isFinite(norm) ? 0 : Number.NaN };
  const embedding = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) embedding[i] = raw[i] / norm;
  return { embedding, norm };
}

/** One session of a recogniser, one intra-op thread (as the engine's other sessions). */
export function recogniserSession(bytes: Buffer): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
}

/** The embedding of a kept crop; throws when the output is not a usable embedding. */
export async function embedCrop(session: ort.InferenceSession, spec: RecogniserSpec, crop: RgbImage): Promise<Float32Array> {
  const out = await session.run({ [spec.input.name]: recogniserInput(spec, crop) });
  const raw = out[spec.output.name].data as Float32Array;
  if (raw.length !== spec.output.size) throw new Error(`${spec.name} answered ${raw.length} values, expected ${spec.output.size}`);
  const { embedding, norm } = normalised(raw);
  if (!(norm > 0)) throw new Error(`${spec.name} answered a ${Number.isNaN(norm) ? 'non-finite' : 'zero'} embedding`);
  return embedding;
}

/** Why a recogniser is refused: the reason is shown to the operator as is. */
export class RecogniserError extends Error {
  override name = 'RecogniserError';
}

/** What a model folder's saola-face.json may state; anything left out is read from the graph or takes ArcFace's convention. */
export interface RecogniserManifest {
  file?: string;
  input?: {
    name?: string;
    width?: number;
    height?: number;
    layout?: 'nchw' | 'nhwc';
    colour?: 'rgb' | 'bgr';
    mean?: number | number[];
    std?: number | number[];
    template?: number[][];
  };
  output?: { name?: string; size?: number };
  /** [cosine, similarity] knots, increasing, from -1 to 1: the map used until `saola face calibrate` stores one. */
  similarity?: number[][];
}

/** A graph input or output as onnxruntime describes it. */
export interface GraphValue {
  name: string;
  isTensor: boolean;
  type?: string;
  shape?: readonly (number | string)[];
}

const fixed = (d: number | string | undefined): number | undefined => (typeof d === 'number' && d > 0 ? d : undefined);

function triple(v: number | number[] | undefined, fallback: number, what: string): [number, number, number] {
  if (v === undefined) return [fallback, fallback, fallback];
  const t = typeof v === 'number' ? [v, v, v] : v;
  if (t.length !== 3 || !t.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new RecogniserError(`input.${what} must be a number or three numbers`);
  return [t[0], t[1], t[2]];
}

/**
 * The recogniser's input and output as the graph declares them, completed by
 * the manifest: one float32 image input of rank 4 with a channel axis of 3
 * (first or last), one embedding output of rank 2 (or 1). Fields the graph
 * leaves dynamic must be stated in the manifest.
 */
export function describeRecogniser(
  inputs: readonly GraphValue[],
  outputs: readonly GraphValue[],
  manifest: RecogniserManifest = {},
): Omit<RecogniserSpec, 'name' | 'file' | 'sha256'> {
  const m = manifest.input ?? {};
  if (inputs.length !== 1) throw new RecogniserError(`the graph takes ${inputs.length} inputs; a recogniser takes one image`);
  const input = inputs[0];
  if (!input.isTensor || (input.type !== undefined && input.type !== 'float32'))
    throw new RecogniserError(`its input ${input.name} is not a float32 tensor (${input.type ?? 'not a tensor'})`);
  const shape = input.shape ?? [];
  if (shape.length !== 4) throw new RecogniserError(`its input ${input.name} has shape [${shape.join(', ')}]; a recogniser takes [1, 3, H, W] or [1, H, W, 3]`);
  const layout = m.layout ?? (shape[1] === 3 ? 'nchw' : shape[3] === 3 ? 'nhwc' : undefined);
  if (!layout) throw new RecogniserError(`its input ${input.name} has shape [${shape.join(', ')}] with no channel axis of 3; state input.layout in saola-face.json`);
  const [h, w] = layout === 'nchw' ? [shape[2], shape[3]] : [shape[1], shape[2]];
  const width = m.width ?? fixed(w);
  const height = m.height ?? fixed(h);
  if (width === undefined || height === undefined)
    throw new RecogniserError(`its input size is not fixed in the graph ([${shape.join(', ')}]); state input.width and input.height in saola-face.json`);
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 32 || height < 32 || width > 640 || height > 640) {
    throw new RecogniserError(`its input is ${width}x${height}; a face recogniser takes 32 to 640 pixels a side`);
  }
  if (fixed(w) !== undefined && fixed(w) !== width) throw new RecogniserError(`saola-face.json says width ${width}, the graph ${w}`);
  if (fixed(h) !== undefined && fixed(h) !== height) throw new RecogniserError(`saola-face.json says height ${height}, the graph ${h}`);
  let template: Point2[];
  if (m.template !== undefined) {
    if (m.template.length !== 5 || !m.template.every((p) => p.length === 2 && p.every((x) => Number.isFinite(x)))) {
      throw new RecogniserError('input.template must be five [x, y] points: left eye, right eye, nose tip, left and right mouth corner');
    }
    template = m.template.map(([x, y]) => [x, y]);
  } else template = scaledArcFaceTemplate(width, height);
  if (m.colour !== undefined && m.colour !== 'rgb' && m.colour !== 'bgr') throw new RecogniserError('input.colour must be "rgb" or "bgr"');
  const std = triple(m.std, 127.5, 'std');
  if (std.some((s) => s === 0)) throw new RecogniserError('input.std may not be 0');

  if (outputs.length < 1) throw new RecogniserError('the graph has no output');
  const output = manifest.output?.name ? outputs.find((o) => o.name === manifest.output!.name) : outputs[0];
  if (!output) throw new RecogniserError(`the graph has no output named ${manifest.output!.name}`);
  if (!output.isTensor || (output.type !== undefined && output.type !== 'float32')) throw new RecogniserError(`its output ${output.name} is not a float32 tensor`);
  const oshape = output.shape ?? [];
  if (oshape.length < 1 || oshape.length > 2 || (oshape.length === 2 && fixed(oshape[0]) !== undefined && oshape[0] !== 1)) {
    throw new RecogniserError(`its output ${output.name} has shape [${oshape.join(', ')}]; a recogniser answers [1, D] (one embedding)`);
  }
  const size = manifest.output?.size ?? fixed(oshape[oshape.length - 1]);
  if (size === undefined) throw new RecogniserError(`its output size is not fixed in the graph; state output.size in saola-face.json`);
  if (!Number.isInteger(size) || size < 16 || size > 4096) throw new RecogniserError(`its output has ${size} values; an embedding has 16 to 4096`);
  return {
    input: { name: input.name, width, height, layout, colour: m.colour ?? 'rgb', mean: triple(m.mean, 127.5, 'mean'), std, template },
    output: { name: output.name, size },
  };
}
