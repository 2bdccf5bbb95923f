/**
 * Face engine worker (runs in a WorkerPool thread). Loads the ONNX sessions
 * once per thread, one intra-op thread each, after checking every file's sha256.
 * One task: decode -> detect (+NMS) -> 68 landmarks -> 5-point Umeyama alignment
 * to 112x112 -> 512-d L2-normalised embedding, eye state, blur; optionally the
 * ID-card outline. Only the largest face gets landmarks and an embedding.
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { findCardOutline } from '../../platform/vision/card-outline.js';
import { ARCFACE_112, fivePoints, invertAffine, umeyama } from './align.js';
import { boxArea, decodeDetections, DETECT_H, DETECT_W, type Box } from './detect.js';
import { cropResize, laplacianVariance, toChw, toGray, warpAffine, type RgbImage } from './image.js';
import { defaultModelDir, loadVerifiedModels } from './models.js';

export interface AnalyzeTask {
  image: Uint8Array;
  detectThreshold: number;
  /** Run the ID-card outline finder (OpenCV) too. */
  checkCard: boolean;
  modelDir?: string;
}

export interface PrimaryFace {
  box: Box;
  /** 68 points, x,y interleaved, pixels of the (possibly downscaled) working image. */
  landmarks: number[];
  embedding: Float32Array;
  /** Probability each eye (left, right in the image) is closed or hidden. */
  eyeClosed: [number, number];
  /** Laplacian variance of the aligned 112x112 face. */
  blur: number;
  /** Mean brightness of the aligned face, 0-255. */
  brightness: number;
  /** Mean brightness of the two eye crops, 0-255 (sunglasses make it low against `brightness`). */
  eyeBrightness: number;
}

export interface CardInfo {
  areaRatio: number;
  score: number;
  touchesBorder: boolean;
  /** Whether the primary face's centre lies inside the card quadrilateral. */
  faceInside: boolean;
}

export type AnalyzeResult =
  | { ok: false; reason: 'decode'; detail: string }
  | {
      ok: true;
      format: string;
      width: number;
      height: number;
      /** Every detected face, largest first. */
      faces: Box[];
      primary?: PrimaryFace;
      card?: CardInfo | null;
      ms: number;
    };

/** Longest side the engine works at; larger photos are downscaled first. */
const WORK_SIDE = 1600;

interface Sessions {
  detect: ort.InferenceSession;
  landmark: ort.InferenceSession;
  feature: ort.InferenceSession;
  eye: ort.InferenceSession;
}

let sessions: Promise<Sessions> | undefined;

function loadSessions(modelDir?: string): Promise<Sessions> {
  sessions ??= (async () => {
    const bytes = loadVerifiedModels(modelDir ?? defaultModelDir());
    const opts: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    };
    const [detect, landmark, feature, eye] = await Promise.all([
      ort.InferenceSession.create(bytes.detect, opts),
      ort.InferenceSession.create(bytes.landmark, opts),
      ort.InferenceSession.create(bytes.feature, opts),
      ort.InferenceSession.create(bytes.eye, opts),
    ]);
    return { detect, landmark, feature, eye };
  })();
  sessions.catch(() => (sessions = undefined));
  return sessions;
}

async function decode(buf: Uint8Array): Promise<{ img: RgbImage; format: string }> {
  const s = sharp(buf, { failOn: 'truncated', limitInputPixels: 60_000_000 });
  const meta = await s.metadata();
  const { data, info } = await s
    .rotate()
    .resize({ width: WORK_SIDE, height: WORK_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
  return { img: { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height }, format: meta.format ?? 'unknown' };
}

async function detectFaces(s: Sessions, img: RgbImage, threshold: number): Promise<Box[]> {
  const small = cropResize(img, 0, 0, img.width, img.height, DETECT_W, DETECT_H);
  const input = new ort.Tensor('float32', toChw(small, 127, 128), [1, 3, DETECT_H, DETECT_W]);
  const out = await s.detect.run({ input });
  const boxes = decodeDetections(out.scores.data as Float32Array, out.boxes.data as Float32Array, img.width, img.height, threshold);
  return boxes.sort((a, b) => boxArea(b) - boxArea(a));
}

async function landmarks68(s: Sessions, img: RgbImage, box: Box): Promise<number[]> {
  // The landmark net was trained on square crops of side = box height, centred on the box.
  const size = box.y2 - box.y1;
  const cx = (box.x1 + box.x2) / 2;
  const cy = (box.y1 + box.y2) / 2;
  const x = cx - size / 2;
  const y = cy - size / 2;
  const crop = cropResize(img, x, y, size, size, 64, 64);
  const gray = toGray(crop);
  for (let i = 0; i < gray.length; i++) gray[i] /= 256;
  const out = await s.landmark.run({ input: new ort.Tensor('float32', gray, [1, 1, 64, 64]) });
  const raw = out.output.data as Float32Array;
  const pts: number[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i += 2) {
    pts[i] = raw[i] * size + x;
    pts[i + 1] = raw[i + 1] * size + y;
  }
  return pts;
}

function softmax2(v: Float32Array): [number, number] {
  const m = Math.max(v[0], v[1]);
  const a = Math.exp(v[0] - m);
  const b = Math.exp(v[1] - m);
  return [a / (a + b), b / (a + b)];
}

async function eyeState(s: Sessions, img: RgbImage, lm: number[]): Promise<{ closed: [number, number]; brightness: number }> {
  let lum = 0;
  const one = async (corners: [number, number], centre: number[]): Promise<number> => {
    let cx = 0;
    let cy = 0;
    for (const i of centre) {
      cx += lm[2 * i];
      cy += lm[2 * i + 1];
    }
    cx /= centre.length;
    cy /= centre.length;
    const size = Math.max(4, (lm[2 * corners[1]] - lm[2 * corners[0]]) * 1.6);
    const crop = cropResize(img, cx - size / 2, cy - size / 2, size, size, 24, 24);
    const gray = toGray(crop);
    for (let i = 0; i < gray.length; i++) {
      lum += gray[i] / (2 * gray.length);
      gray[i] /= 255;
    }
    const out = await s.eye.run({ input: new ort.Tensor('float32', gray, [1, 1, 24, 24]) });
    return softmax2(out.output.data as Float32Array)[EYE_CLOSED_INDEX];
  };
  const closed: [number, number] = [await one([36, 39], [37, 38, 40, 41]), await one([42, 45], [43, 44, 46, 47])];
  return { closed, brightness: lum };
}

/** Which softmax output of fr_eye.onnx means "closed" (measured on open-eyed portraits). */
const EYE_CLOSED_INDEX = 0;

async function embed(s: Sessions, img: RgbImage, lm: number[]): Promise<{ embedding: Float32Array; blur: number; brightness: number }> {
  const toRef = umeyama(fivePoints(lm), ARCFACE_112);
  const aligned = warpAffine(img, invertAffine(toRef), 112, 112);
  const out = await s.feature.run({ input: new ort.Tensor('float32', toChw(aligned, 127.5, 128), [1, 3, 112, 112]) });
  const raw = out.output.data as Float32Array;
  let norm = 0;
  for (let i = 0; i < raw.length; i++) norm += raw[i] * raw[i];
  norm = Math.sqrt(norm) || 1;
  const embedding = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) embedding[i] = raw[i] / norm;
  const gray = toGray(aligned);
  let sum = 0;
  for (let i = 0; i < gray.length; i++) sum += gray[i];
  return { embedding, blur: laplacianVariance(gray, 112, 112), brightness: sum / gray.length };
}

function inside(quad: { x: number; y: number }[], x: number, y: number): boolean {
  let hit = false;
  for (let i = 0, j = quad.length - 1; i < quad.length; j = i++) {
    const a = quad[i];
    const b = quad[j];
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) hit = !hit;
  }
  return hit;
}

export async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  const started = performance.now();
  const s = await loadSessions(task.modelDir);
  let decoded: { img: RgbImage; format: string };
  try {
    decoded = await decode(task.image);
  } catch (err) {
    return { ok: false, reason: 'decode', detail: (err as Error).message };
  }
  const { img, format } = decoded;
  const faces = await detectFaces(s, img, task.detectThreshold);
  let primary: PrimaryFace | undefined;
  if (faces.length > 0) {
    const lm = await landmarks68(s, img, faces[0]);
    const [{ embedding, blur, brightness }, eyes] = await Promise.all([embed(s, img, lm), eyeState(s, img, lm)]);
    primary = { box: faces[0], landmarks: lm, embedding, eyeClosed: eyes.closed, blur, brightness, eyeBrightness: eyes.brightness };
  }
  let card: CardInfo | null | undefined;
  if (task.checkCard) {
    const gray = toGray(img);
    const bytes = new Uint8Array(gray.length);
    for (let i = 0; i < gray.length; i++) bytes[i] = gray[i];
    const outline = await findCardOutline({ data: bytes, width: img.width, height: img.height });
    card = outline
      ? {
          areaRatio: outline.areaRatio,
          score: outline.score,
          touchesBorder: outline.touchesBorder,
          faceInside: primary ? inside(outline.corners, (primary.box.x1 + primary.box.x2) / 2, (primary.box.y1 + primary.box.y2) / 2) : false,
        }
      : null;
  }
  return { ok: true, format, width: img.width, height: img.height, faces, primary, card, ms: performance.now() - started };
}

export default analyze;
