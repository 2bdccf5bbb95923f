/**
 * Face engine worker (runs in a WorkerPool thread). Loads the ONNX sessions
 * once per thread, one intra-op thread each, after checking every file's sha256.
 * One task: decode -> detect (+NMS; tiled and turned passes when needed) ->
 * 68 landmarks and sharpness of each detection, face rules (subject.ts) ->
 * the subject -> 5-point Umeyama alignment to 112x112 -> 512-d L2-normalised
 * embedding, eye state, blur; optionally the ID-card outline. Only the subject
 * gets an embedding (and the eye model).
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { findCardOutline } from '../../platform/vision/card-outline.js';
import { ARCFACE_112, fivePoints, invertAffine, umeyama } from './align.js';
import { boxArea, decodeDetections, DETECT_H, DETECT_W, nms, type Box } from './detect.js';
import { cropResize, laplacianVariance, toChw, toGray, warpAffine, type RgbImage } from './image.js';
import { defaultModelDir, fileSha256, loadVerifiedModels, SHIPPED_RECOGNISER, ModelIntegrityError } from './models.js';
import { alignCrop, embedCrop, recogniserSession, type RecogniserSpec } from './recogniser.js';
import { DEFAULT_SUBJECT_RULES, implausibleGeometry, orderBySubject, type FaceCandidate, type SubjectRules } from './subject.js';

export interface AnalyzeTask {
  image: Uint8Array;
  detectThreshold: number;
  /** Run the ID-card outline finder (OpenCV) too. */
  checkCard: boolean;
  modelDir?: string;
  /** How the subject is chosen among the faces (default DEFAULT_SUBJECT_RULES). */
  subject?: Pick<SubjectRules, 'centreWeight' | 'secondFaceSharpness'>;
  /** The recogniser that embeds the subject (default: the shipped one, which also judges what is a face either way). */
  recogniser?: RecogniserSpec;
  /** Answer the subject's aligned crop as PNG (kept for enrolled faces). */
  keepCrop?: boolean;
}

export interface PrimaryFace {
  box: Box;
  /** 68 points, x,y interleaved, pixels of the (possibly downscaled) working image. */
  landmarks: number[];
  embedding: Float32Array;
  /** Length of the embedding before normalisation: the net answers short vectors for what it cannot read as a face. */
  quality: number;
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
  /** The recogniser that made `embedding`. */
  model: string;
  /** The aligned crop (recogniser.ts, CROP_SIZE) as PNG, when the task asked for it. */
  crop?: Uint8Array;
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
      /** Every detection that is a face (plausible landmarks), the subject first. */
      faces: FaceCandidate[];
      /** Detections dropped as not faces, with the rule that dropped them. */
      rejected: { box: Box; reason: string }[];
      /** Clockwise degrees the (EXIF-upright) photo was turned to find upright faces; width/height and boxes are of the turned image. */
      rotation: 0 | 90 | 180 | 270;
      /** Working-image pixels per pixel of the uploaded (EXIF-upright) photo (<= 1). */
      scale: number;
      /** Whether the second, tiled detection pass ran (no face in the whole-photo pass). */
      tiled: boolean;
      /** The subject's face (faces[0]) with its embedding. */
      primary?: PrimaryFace;
      card?: CardInfo | null;
      ms: number;
    };

/** Longest side the engine works at; larger photos are downscaled first. */
const WORK_SIDE = 1600;

/** The engine's ONNX sessions of one thread (liveness reuses them from its own worker). */
export interface Sessions {
  detect: ort.InferenceSession;
  landmark: ort.InferenceSession;
  feature: ort.InferenceSession;
  eye: ort.InferenceSession;
}

let sessions: Promise<Sessions> | undefined;

export function loadSessions(modelDir?: string): Promise<Sessions> {
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
export async function decodeImage(buf: Uint8Array): Promise<{ img: RgbImage; format: string; scale: number }> {
  const s = sharp(buf, { failOn: 'truncated', limitInputPixels: 60_000_000 });
  const meta = await s.metadata();
  const uprightWidth = meta.autoOrient?.width ?? meta.width ?? 0;
  const { data, info } = await s
    .rotate()
    .resize({ width: WORK_SIDE, height: WORK_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
  return {
    img: { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height },
    format: meta.format ?? 'unknown',
    scale: uprightWidth > 0 ? info.width / uprightWidth : 1,
  };
}

/** One detector run on `img` (squeezed to 320x240), boxes in pixels of `img`. */
async function detectOnce(s: Sessions, img: RgbImage, threshold: number): Promise<Box[]> {
  // sharp (libvips) resamples faster than a JS warp at this size (measured: also faster than a fused JS bilinear-to-tensor pass).
  const resized = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(DETECT_W, DETECT_H, { fit: 'fill' })
    .raw()
    .toBuffer();
  const small: RgbImage = { data: new Uint8Array(resized.buffer, resized.byteOffset, resized.length), width: DETECT_W, height: DETECT_H };
  const input = new ort.Tensor('float32', toChw(small, 127, 128), [1, 3, DETECT_H, DETECT_W]);
  const out = await s.detect.run({ input });
  return decodeDetections(out.scores.data as Float32Array, out.boxes.data as Float32Array, img.width, img.height, threshold);
}

/**
 * The raw detector's boxes, largest first, with no geometry or subject rules:
 * liveness counts every box of a video frame itself (two faces is its 408).
 */
export async function detectFaces(s: Sessions, img: RgbImage, threshold: number): Promise<Box[]> {
  return (await detectOnce(s, img, threshold)).sort((a, b) => boxArea(b) - boxArea(a));
}

/** Tiles of the second pass: 800x600 windows overlapping by a quarter, so a face of ~40 px of the working image is ~16 px for the detector. */
export function detectionTiles(width: number, height: number): { x: number; y: number; w: number; h: number }[] {
  const tw = Math.min(width, TILE_W);
  const th = Math.min(height, TILE_H);
  const starts = (size: number, tile: number) => {
    const out: number[] = [];
    for (let p = 0; ; p += Math.round(tile * 0.75)) {
      if (p + tile >= size) {
        out.push(size - tile);
        break;
      }
      out.push(p);
    }
    return out;
  };
  return starts(height, th).flatMap((y) => starts(width, tw).map((x) => ({ x, y, w: tw, h: th })));
}
const TILE_W = 800;
const TILE_H = 600;
/** Detections kept for landmarks per photo (largest-and-surest first): bounds the work on a crowd. */
const MAX_CANDIDATES = 12;

function crop(img: RgbImage, t: { x: number; y: number; w: number; h: number }): RgbImage {
  const out = new Uint8Array(t.w * t.h * 3);
  for (let y = 0; y < t.h; y++) out.set(img.data.subarray(((t.y + y) * img.width + t.x) * 3, ((t.y + y) * img.width + t.x + t.w) * 3), y * t.w * 3);
  return { data: out, width: t.w, height: t.h };
}

/** The working image turned clockwise by `degrees`. */
async function rotateImage(img: RgbImage, degrees: 90 | 180 | 270): Promise<RgbImage> {
  const { data, info } = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: 3 } })
    .rotate(degrees)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Landmarks and sharpness for each box, split into faces and rejected detections. */
async function examine(s: Sessions, img: RgbImage, boxes: Box[]): Promise<{ faces: FaceCandidate[]; rejected: { box: Box; reason: string }[] }> {
  const faces: FaceCandidate[] = [];
  const rejected: { box: Box; reason: string }[] = [];
  const ordered = [...boxes].sort((a, b) => Math.sqrt(boxArea(b)) * b.score - Math.sqrt(boxArea(a)) * a.score);
  for (const [i, box] of ordered.entries()) {
    if (i >= MAX_CANDIDATES) {
      rejected.push({ box, reason: `not examined (more than ${MAX_CANDIDATES} detections)` });
      continue;
    }
    const { landmarks, sharpness } = await landmarks68(s, img, box);
    const why = implausibleGeometry(box, landmarks);
    if (why) rejected.push({ box, reason: why });
    else faces.push({ ...box, landmarks, sharpness });
  }
  return { faces, rejected };
}

interface Found {
  img: RgbImage;
  /** Faces, the subject first. */
  faces: FaceCandidate[];
  rejected: { box: Box; reason: string }[];
  rotation: 0 | 90 | 180 | 270;
  tiled: boolean;
  /** The subject's embedding and the measures taken on its aligned face. */
  embedded?: Awaited<ReturnType<typeof embed>>;
}

/**
 * Embedding length (before normalisation) below which an upright-looking
 * subject may be upside down: the shared photos' upright faces measured
 * 3.3-4.5, the same faces turned by 180 degrees 2.0-3.0 (the detector and the
 * landmark net both still answer "a face" for them); the fixtures' darkest
 * upright faces 2.9-3.1, which then pay for one more embedding.
 */
export const UPRIGHT_QUALITY = 3.05;
/**
 * Embedding length below which a detection is not a face: textures that fool
 * the detector and the landmark geometry measured 1.5-1.8; real faces 2.9 and
 * up, heavily blurred (sigma 8) or darkened ones down to 2.1.
 */
export const MIN_FACE_QUALITY = 2.0;
/** Below this the upright reading is so weak that the whole photo is searched turned each way (turned faces measured 1.5-3.0, upright ones 2.9 and up). */
export const WEAK_QUALITY = 2.6;
/** A turned reading must beat the upright one by this much to be taken. */
const TURN_MARGIN = 0.3;

/**
 * A face box clearly wider than tall may lie on its side: upright faces' boxes
 * measured 1.27-1.51 times taller than wide on the shared photos, 0.99-1.35 on
 * the tight fixture crops.
 */
function sideways(b: Box): boolean {
  return b.x2 - b.x1 >= 1.2 * (b.y2 - b.y1);
}

/** Embedding length of the face in `box` read turned clockwise by `degrees`, from a crop only (cheaper than turning the whole photo). */
async function turnedQuality(s: Sessions, img: RgbImage, box: Box, degrees: 90 | 180 | 270): Promise<number> {
  const side = Math.max(box.x2 - box.x1, box.y2 - box.y1);
  const cx = (box.x1 + box.x2) / 2;
  const cy = (box.y1 + box.y2) / 2;
  const x0 = Math.max(0, Math.floor(cx - side * 0.8));
  const y0 = Math.max(0, Math.floor(cy - side * 0.8));
  const w = Math.min(img.width - x0, Math.ceil(side * 1.6));
  const h = Math.min(img.height - y0, Math.ceil(side * 1.6));
  const k = Math.min(1, 256 / Math.max(w, h));
  const region = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), { raw: { width: img.width, height: img.height, channels: 3 } })
    .extract({ left: x0, top: y0, width: w, height: h })
    .resize(Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k)), { fit: 'fill' })
    .rotate(degrees)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const turned: RgbImage = { data: new Uint8Array(region.data.buffer, region.data.byteOffset, region.data.length), width: region.info.width, height: region.info.height };
  // The box's centre turned with the crop; a square box of the longer side, since a turned face's box is the wrong shape.
  const [px, py] = [(cx - x0) * k, (cy - y0) * k];
  // Clockwise turns of the crop: 90 sends (x, y) to (W' - y, x), 180 to (W' - x, H' - y), 270 to (y, H' - x), W' x H' the turned size.
  const [tx, ty] = degrees === 90 ? [turned.width - py, px] : degrees === 180 ? [turned.width - px, turned.height - py] : [py, turned.height - px];
  const half = (side * k) / 2;
  const { landmarks } = await landmarks68(s, turned, { x1: tx - half, y1: ty - half, x2: tx + half, y2: ty + half, score: box.score });
  return (await embed(s, turned, landmarks)).quality;
}

/**
 * Detection in passes, each only when needed: the whole photo at the
 * detector's 320x240; overlapping tiles of the working image when that found
 * no face (a person small in a wide shot); the photo turned by 90, 270 and 180
 * degrees when still no face or the subject's embedding is very weak; the
 * subject's crop read turned each way when its embedding is weak or its box
 * lies on its side, the photo turned only for a clearly better reading (a
 * phone photo saved without its EXIF orientation).
 */
async function findFaces(s: Sessions, img: RgbImage, threshold: number, rules: Pick<SubjectRules, 'centreWeight' | 'secondFaceSharpness'>): Promise<Found> {
  const withSubject = async (f: Omit<Found, 'embedded'>): Promise<Found> => {
    const faces = orderBySubject(f.faces, f.img.width, f.img.height, rules);
    const rejected = [...f.rejected];
    // The subject must also read as a face to the embedding net; if not, the next face in line is tried.
    for (let i = 0; i < Math.min(faces.length, 3); i++) {
      const embedded = await embed(s, f.img, faces[0].landmarks);
      if (embedded.quality >= MIN_FACE_QUALITY) return { ...f, faces, rejected, embedded };
      const [dropped] = faces.splice(0, 1);
      rejected.push({ box: dropped, reason: `embedding length ${embedded.quality.toFixed(2)} (not read as a face)` });
    }
    return { ...f, faces: [], rejected };
  };
  const turnedPass = async (degrees: 90 | 180 | 270, tiled: boolean): Promise<Found | undefined> => {
    const turned = await rotateImage(img, degrees);
    const found = await examine(s, turned, await detectOnce(s, turned, threshold));
    const option = await withSubject({ img: turned, faces: found.faces, rejected: found.rejected, rotation: degrees, tiled });
    if (option.embedded) return option;
    // Kept for the answer when no pass finds a face (in pixels of the turned image; the reasons are what matters).
    turnedRejects.push(...option.rejected);
    return undefined;
  };
  const turnedRejects: { box: Box; reason: string }[] = [];
  const whole = await examine(s, img, await detectOnce(s, img, threshold));
  let best = await withSubject({ img, faces: whole.faces, rejected: whole.rejected, rotation: 0, tiled: false });
  const tiles = detectionTiles(img.width, img.height);
  if (!best.embedded && tiles.length > 1) {
    const boxes: Box[] = [];
    for (const t of tiles) {
      for (const b of await detectOnce(s, crop(img, t), threshold)) boxes.push({ x1: b.x1 + t.x, y1: b.y1 + t.y, x2: b.x2 + t.x, y2: b.y2 + t.y, score: b.score });
    }
    const pass = await examine(s, img, nms(boxes, 0.4));
    best = await withSubject({ img, faces: pass.faces, rejected: [...best.rejected, ...pass.rejected], rotation: 0, tiled: true });
  }
  const tiled = best.tiled;
  if (!best.embedded || best.embedded.quality < WEAK_QUALITY) {
    // No face, or one the embedding net barely reads: the real face may be the one lying on its side (rejected above).
    for (const degrees of [90, 270, 180] as const) {
      const option = await turnedPass(degrees, tiled);
      if (option?.embedded && (!best.embedded || option.embedded.quality > best.embedded.quality + (best.rotation === 0 ? TURN_MARGIN : 0))) best = option;
      if (best.rotation !== 0 && best.embedded!.quality >= UPRIGHT_QUALITY) break;
    }
  } else if (best.embedded.quality < UPRIGHT_QUALITY || sideways(best.faces[0])) {
    // Read the subject's crop turned each way; turn the whole photo only for a clearly better reading.
    let turn: 90 | 180 | 270 | undefined;
    let q = best.embedded.quality + TURN_MARGIN;
    for (const degrees of [90, 270, 180] as const) {
      const tq = await turnedQuality(s, img, best.faces[0], degrees);
      if (tq > q) [turn, q] = [degrees, tq];
    }
    if (turn) best = (await turnedPass(turn, tiled)) ?? best;
  }
  return best.embedded ? best : { ...best, rejected: [...best.rejected, ...turnedRejects] };
}

export async function landmarks68(s: Sessions, img: RgbImage, box: Box): Promise<{ landmarks: number[]; sharpness: number }> {
  // The landmark net was trained on square crops of side = box height, centred on the box.
  const size = box.y2 - box.y1;
  const cx = (box.x1 + box.x2) / 2;
  const cy = (box.y1 + box.y2) / 2;
  const x = cx - size / 2;
  const y = cy - size / 2;
  const crop = cropResize(img, x, y, size, size, 64, 64);
  const gray = toGray(crop);
  // Measured on the crop every box gets anyway: sizes are normalised, so a blurred background face reads low against the subject.
  const sharpness = laplacianVariance(gray, 64, 64);
  for (let i = 0; i < gray.length; i++) gray[i] /= 256;
  const out = await s.landmark.run({ input: new ort.Tensor('float32', gray, [1, 1, 64, 64]) });
  const raw = out.output.data as Float32Array;
  const pts: number[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i += 2) {
    pts[i] = raw[i] * size + x;
    pts[i + 1] = raw[i + 1] * size + y;
  }
  return { landmarks: pts, sharpness };
}

function softmax2(v: Float32Array): [number, number] {
  const m = Math.max(v[0], v[1]);
  const a = Math.exp(v[0] - m);
  const b = Math.exp(v[1] - m);
  return [a / (a + b), b / (a + b)];
}

export async function eyeState(s: Sessions, img: RgbImage, lm: number[]): Promise<{ closed: [number, number]; brightness: number }> {
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

export async function embed(
  s: Sessions,
  img: RgbImage,
  lm: number[],
): Promise<{ embedding: Float32Array; quality: number; blur: number; brightness: number; skinUpper: number; skinLower: number }> {
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
    quality: norm,
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

const recognisers = new Map<string, Promise<ort.InferenceSession>>();

/** This thread's session of an installed recogniser, made once per name and file after its sha256 is checked. */
function installedSession(spec: RecogniserSpec): Promise<ort.InferenceSession> {
  const key = `${spec.name}\n${spec.file}`;
  let session = recognisers.get(key);
  if (!session) {
    session = (async () => {
      const digest = fileSha256(spec.file);
      if (digest !== spec.sha256) throw new ModelIntegrityError(`Face recogniser ${spec.file} has sha256 ${digest}, expected ${spec.sha256}: refusing to load it`);
      return recogniserSession(fs.readFileSync(spec.file));
    })();
    session.catch(() => recognisers.delete(key));
    recognisers.set(key, session);
  }
  return session;
}

/**
 * The subject's embedding by an installed recogniser, from the same aligned
 * crop that is kept for it, so a later re-embedding of the kept crop gives the same vector.
 */
async function embedInstalled(spec: RecogniserSpec, img: RgbImage, lm: number[]): Promise<Float32Array> {
  return embedCrop(await installedSession(spec), spec, alignCrop(img, lm));
}

async function encodeCrop(img: RgbImage, lm: number[]): Promise<Uint8Array> {
  const crop = alignCrop(img, lm);
  const png = await sharp(Buffer.from(crop.data.buffer, crop.data.byteOffset, crop.data.length), { raw: { width: crop.width, height: crop.height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.length);
}

export async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  const started = performance.now();
  const s = await loadSessions(task.modelDir);
  let decoded: Awaited<ReturnType<typeof decodeImage>>;
  try {
    decoded = await decodeImage(task.image);
  } catch (err) {
    return { ok: false, reason: 'decode', detail: (err as Error).message };
  }
  const found = await findFaces(s, decoded.img, task.detectThreshold, task.subject ?? DEFAULT_SUBJECT_RULES);
  const { img, faces } = found;
  let primary: PrimaryFace | undefined;
  if (faces.length > 0 && found.embedded) {
    const lm = faces[0].landmarks;
    const eyes = await eyeState(s, img, lm);
    primary = {
      box: faces[0],
      landmarks: lm,
      ...found.embedded,
      model: SHIPPED_RECOGNISER,
      eyeClosed: eyes.closed,
      eyeBrightness: eyes.brightness,
      pose: poseFromLandmarks(lm),
    };
    // The shipped net's reading above decided what is a face; an installed recogniser only embeds the subject.
    if (task.recogniser && task.recogniser.name !== SHIPPED_RECOGNISER) {
      primary.embedding = await embedInstalled(task.recogniser, img, lm);
      primary.model = task.recogniser.name;
    }
    if (task.keepCrop) primary.crop = await encodeCrop(img, lm);
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
  return {
    ok: true,
    format: decoded.format,
    width: img.width,
    height: img.height,
    faces,
    rejected: found.rejected,
    rotation: found.rotation,
    scale: decoded.scale,
    tiled: found.tiled,
    primary,
    card,
    ms: performance.now() - started,
  };
}

export default analyze;
