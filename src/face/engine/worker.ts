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
  /** Share of skin-coloured pixels (YCbCr box) above the eyebrows (forehead) and below the nose (mouth, chin) of the aligned face. */
  skinUpper: number;
  skinLower: number;
  /** Head pose in degrees estimated from the landmarks' geometry (not the fr_pose model): roll (+ = clockwise in the image), yaw (+ = face turned to the image's right), pitch (+ = down). */
  pose: { roll: number; yaw: number; pitch: number };
}

/** Rough head pose from 68 landmarks: eye-line angle, nose-tip offset between the eyes and between eyes and mouth. */
export function poseFromLandmarks(lm: number[]): { roll: number; yaw: number; pitch: number } {
  const mean = (idx: number[]) => [idx.reduce((a, i) => a + lm[2 * i], 0) / idx.length, idx.reduce((a, i) => a + lm[2 * i + 1], 0) / idx.length];
  const [lx, ly] = mean([36, 37, 38, 39, 40, 41]);
  const [rx, ry] = mean([42, 43, 44, 45, 46, 47]);
  const [mx, my] = mean([48, 54]);
  const nx = lm[60];
  const ny = lm[61];
  const rollRad = Math.atan2(ry - ly, rx - lx);
  // Undo the roll so yaw and pitch are measured along the face's own axes.
  const cos = Math.cos(-rollRad);
  const sin = Math.sin(-rollRad);
  const rot = (x: number, y: number) => [x * cos - y * sin, x * sin + y * cos];
  const [elx, ely] = rot(lx, ly);
  const [erx] = rot(rx, ry);
  const [nrx, nry] = rot(nx, ny);
  const [, mry] = rot(mx, my);
  const eyeMidX = (elx + erx) / 2;
  const halfEye = Math.max(1e-6, (erx - elx) / 2);
  const yaw = (Math.asin(Math.max(-1, Math.min(1, (nrx - eyeMidX) / halfEye))) * 180) / Math.PI;
  // Frontal faces have the nose tip about 55% of the way from the eye line to the mouth.
  const t = (nry - ely) / Math.max(1e-6, mry - ely);
  const pitch = Math.max(-90, Math.min(90, (t - 0.55) * 150));
  return { roll: (rollRad * 180) / Math.PI, yaw, pitch };
}

/** Share of pixels of the aligned 112x112 face inside [x0,x1) x [y0,y1) whose Cb/Cr fall in the classic skin box. */
function skinRatio(img: RgbImage, x0: number, y0: number, x1: number, y1: number): number {
  let skin = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 3;
      const r = img.data[i];
      const g = img.data[i + 1];
      const b = img.data[i + 2];
      const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
      const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
      if (cr >= 133 && cr <= 180 && cb >= 75 && cb <= 130) skin++;
      n++;
    }
  }
  return n ? skin / n : 0;
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
    const bytes = loadVerifiedModels(modelDir ?? defaultModelDir(), ['detect', 'landmark', 'feature', 'eye'] as const);
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

/** Decodes a photo to the working RGB image (EXIF rotation applied, at most WORK_SIDE on the long side). */
export async function decodeImage(buf: Uint8Array): Promise<{ img: RgbImage; format: string }> {
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
  // sharp (libvips) resamples faster than a JS warp at this size (measured: also faster than a fused JS bilinear-to-tensor pass).
  const resized = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(DETECT_W, DETECT_H, { fit: 'fill' })
    .raw()
    .toBuffer();
  const small: RgbImage = { data: new Uint8Array(resized.buffer, resized.byteOffset, resized.length), width: DETECT_W, height: DETECT_H };
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

/** The 112x112 face aligned onto the ArcFace template by its 5 points (from 68 landmarks). */
export function alignFace(img: RgbImage, lm: number[]): RgbImage {
  return warpAffine(img, invertAffine(umeyama(fivePoints(lm), ARCFACE_112)), 112, 112);
}

/** fr_feature's input tensor data (1x3x112x112) for an aligned face. */
export function featureInput(aligned: RgbImage): Float32Array {
  return toChw(aligned, 127.5, 128);
}

async function embed(s: Sessions, img: RgbImage, lm: number[]): Promise<{ embedding: Float32Array; blur: number; brightness: number; skinUpper: number; skinLower: number }> {
  const aligned = alignFace(img, lm);
  const out = await s.feature.run({ input: new ort.Tensor('float32', featureInput(aligned), [1, 3, 112, 112]) });
  const raw = out.output.data as Float32Array;
  let norm = 0;
  for (let i = 0; i < raw.length; i++) norm += raw[i] * raw[i];
  norm = Math.sqrt(norm) || 1;
  const embedding = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) embedding[i] = raw[i] / norm;
  const gray = toGray(aligned);
  let sum = 0;
  for (let i = 0; i < gray.length; i++) sum += gray[i];
  return {
    embedding,
    blur: laplacianVariance(gray, 112, 112),
    brightness: sum / gray.length,
    // Template: eyes at y 51, nose tip at y 72, mouth corners at y 92.
    skinUpper: skinRatio(aligned, 34, 22, 78, 40),
    skinLower: skinRatio(aligned, 36, 80, 76, 108),
  };
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
    decoded = await decodeImage(task.image);
  } catch (err) {
    return { ok: false, reason: 'decode', detail: (err as Error).message };
  }
  const { img, format } = decoded;
  const faces = await detectFaces(s, img, task.detectThreshold);
  let primary: PrimaryFace | undefined;
  if (faces.length > 0) {
    const lm = await landmarks68(s, img, faces[0]);
    const [emb, eyes] = await Promise.all([embed(s, img, lm), eyeState(s, img, lm)]);
    primary = { box: faces[0], landmarks: lm, ...emb, eyeClosed: eyes.closed, eyeBrightness: eyes.brightness, pose: poseFromLandmarks(lm) };
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
