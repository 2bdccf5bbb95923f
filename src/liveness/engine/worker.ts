/**
 * Liveness worker (runs in the liveness WorkerPool thread). Reuses the face
 * engine's sessions and steps (detector, 68 landmarks, eye state, embedding)
 * and adds the passive anti-spoof model; per sampled frame it measures
 * faces, landmarks, sharpness, pose (three yaw estimates), brightness, eye
 * closure and the eye patches against the cheeks, then runs
 * the anti-spoof model and the screen cues on the best frames and embeds the
 * straightest, sharpest one (for `cmnd`).
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { findCardOutline } from '../../platform/vision/card-outline.js';
import type { AntispoofInput } from '../config.js';
import {
  alignFace,
  defaultModelDir,
  detectFaces,
  embed,
  eyeState,
  landmarks68,
  laplacianVariance,
  loadSessions,
  loadVerifiedModels,
  poseFromLandmarks,
  toGray,
  type Box,
  type RgbImage,
} from '../../face/index.js';
import { loadLivenessAntispoof } from './models.js';
import { ANTISPOOF_SPECS, antispoofCrop, antispoofTensor, liveProbability } from './antispoof.js';
import { meanAbsDifference, thumbnail } from './motion.js';
import { eyeCover, type EyeCover } from './occlusion.js';
import { estimateYaw, type YawEstimates } from './pose.js';
import { sceneFollowsFace, type SceneFollow } from './scene.js';
import { glareShare, moireScore } from './screen.js';

export interface LivenessTask {
  /** `count` frames of width x height RGB, one after another. */
  frames: Uint8Array;
  width: number;
  height: number;
  count: number;
  detectThreshold: number;
  modelDir?: string;
  /** An operator's anti-spoof model file (else the committed fr_liveness.onnx) and its input. */
  antispoofModel?: string;
  antispoofInput: AntispoofInput;
  /** How many of the best frames get the anti-spoof model and the screen cues. */
  topFrames: number;
  /** Also return the embedding of the best frame's face (for `cmnd`). */
  embed: boolean;
}

export interface FrameFace {
  box: Box;
  landmarks: number[];
  /** Probability each eye is closed. */
  eyeClosed: [number, number];
  /** Laplacian variance of the aligned 112x112 face. */
  blur: number;
  /** Mean brightness of the aligned face, 0-255. */
  brightness: number;
  /** Mean brightness of the two eye crops, 0-255 (dark glasses make it low against `brightness`). */
  eyeBrightness: number;
  pose: { roll: number; yaw: number; pitch: number };
  /** Yaw from the landmarks' nose-to-eyes offset, the face outline and the detector box, and their median (pose.ts). */
  yaw: YawEstimates;
  /** Darkness and texture of each eye patch against its cheek on the aligned face (occlusion.ts). */
  cover: EyeCover;
}

export interface FrameResult {
  /** Every detected face, largest first. */
  faces: Box[];
  face?: FrameFace;
  /** Mean absolute difference (0-255) of this frame's thumbnail against the previous frame's (0 for the first). */
  diff: number;
  /** ...and against the first frame's. */
  diffFirst: number;
}

export interface LivenessAnalysis {
  width: number;
  height: number;
  frames: FrameResult[];
  /** The straightest, sharpest frame with a face. */
  best?: number;
  /** Frames the anti-spoof model and screen cues ran on, and the model's live probability on each. */
  cueFrames: number[];
  antispoof: number[];
  /** The nets' live probability on up to ANTISPOOF_FRAMES face frames spread over the video (the cue is their median). */
  antispoofAll: number[];
  /** Skin shares above the eyebrows and over mouth and chin of the aligned face, per cue frame (the face engine's mask rule). */
  skin: { upper: number; lower: number }[];
  /** Strongest moiré score, largest glare share and border score over the cue frames. */
  moire: number;
  glare: number;
  border: number;
  /** Whether the face's surroundings move with it (scene.ts), against the best frame. */
  scene: SceneFollow;
  embedding?: Float32Array;
  ms: number;
}

/** One anti-spoof net and the input it expects. */
interface AntispoofNet {
  session: ort.InferenceSession;
  input: Exclude<AntispoofInput, 'minifasnet'>;
}

let antispoof: Promise<AntispoofNet[]> | undefined;

/** Face frames the anti-spoof nets score per video (their median is the cue). */
export const ANTISPOOF_FRAMES = 10;

const createSession = (bytes: Buffer) =>
  ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });

function antispoofNets(task: LivenessTask): Promise<AntispoofNet[]> {
  antispoof ??= (async () => {
    // The operator's file is read as is (its sha256 is logged at start-up); the committed ones are verified.
    if (task.antispoofModel)
      return [
        { session: await createSession(fs.readFileSync(task.antispoofModel)), input: task.antispoofInput === 'minifasnet' ? 'minifasnet-v2' : task.antispoofInput },
      ];
    if (task.antispoofInput === 'faceplugin')
      return [{ session: await createSession(loadVerifiedModels(task.modelDir ?? defaultModelDir(), ['liveness'] as const).liveness), input: 'faceplugin' }];
    if (task.antispoofInput === 'minifasnet-v1se') return [{ session: await createSession(loadLivenessAntispoof('v1se')), input: 'minifasnet-v1se' }];
    if (task.antispoofInput === 'minifasnet-v2') return [{ session: await createSession(loadLivenessAntispoof('v2')), input: 'minifasnet-v2' }];
    return [
      { session: await createSession(loadLivenessAntispoof('v2')), input: 'minifasnet-v2' },
      { session: await createSession(loadLivenessAntispoof('v1se')), input: 'minifasnet-v1se' },
    ];
  })();
  antispoof.catch(() => (antispoof = undefined));
  return antispoof;
}

/** The anti-spoof model's live probability for one face of one frame. */
export async function antispoofScore(session: ort.InferenceSession, input: AntispoofInput, img: RgbImage, box: Box): Promise<number> {
  const spec = ANTISPOOF_SPECS[input];
  const tensor = new ort.Tensor('float32', antispoofTensor(antispoofCrop(img, box, spec), spec.order), [1, 3, spec.size, spec.size]);
  const out = await session.run({ [session.inputNames[0]]: tensor });
  return liveProbability(out[session.outputNames[0]].data as Float32Array, spec.liveIndex);
}

/** The mean live probability of the nets for one face. */
async function antispoofMean(nets: AntispoofNet[], img: RgbImage, box: Box): Promise<number> {
  let sum = 0;
  for (const n of nets) sum += await antispoofScore(n.session, n.input, img, box);
  return sum / nets.length;
}

/** Whether (x, y) lies inside the bounding box of a quadrilateral's corners. */
function insideBounds(corners: { x: number; y: number }[], x: number, y: number): boolean {
  const xs = corners.map((c) => c.x);
  const ys = corners.map((c) => c.y);
  return x > Math.min(...xs) && x < Math.max(...xs) && y > Math.min(...ys) && y < Math.max(...ys);
}

/** How straight and sharp a frame's face is: the choice of the "best" frame. */
export function frameQuality(f: FrameFace): number {
  return Math.log(1 + f.blur) - (Math.abs(f.pose.yaw) + Math.abs(f.pose.pitch)) / 20;
}

/**
 * Charges the CPU time since the last call to a named stage (eval/liveness/profile.ts). Process-wide CPU: it means
 * something only when the process does nothing else meanwhile, so the server never passes one.
 */
export type StageClock = (stage: string) => void;

export async function analyzeVideo(task: LivenessTask, lap: StageClock = () => {}): Promise<LivenessAnalysis> {
  const started = performance.now();
  const s = await loadSessions(task.modelDir);
  lap('load models');
  const { width, height, count } = task;
  const size = width * height * 3;
  const frameAt = (i: number): RgbImage => {
    // A private copy: sharp reads the frame through a Buffer, which must not sit on shared memory.
    const data = new Uint8Array(size);
    data.set(task.frames.subarray(i * size, (i + 1) * size));
    return { data, width, height };
  };
  const frames: FrameResult[] = [];
  let first: Uint8Array | undefined;
  let prev: Uint8Array | undefined;
  for (let i = 0; i < count; i++) {
    const img = frameAt(i);
    const thumb = thumbnail(img.data, width, height).data;
    first ??= thumb;
    const result: FrameResult = { faces: [], diff: prev ? meanAbsDifference(prev, thumb) : 0, diffFirst: meanAbsDifference(first, thumb) };
    prev = thumb;
    lap('frame copy + thumbnail');
    result.faces = await detectFaces(s, img, task.detectThreshold);
    lap('detector');
    if (result.faces.length > 0) {
      const box = result.faces[0];
      const { landmarks } = await landmarks68(s, img, box);
      lap('landmarks');
      const gray = toGray(alignFace(img, landmarks));
      let sum = 0;
      for (let k = 0; k < gray.length; k++) sum += gray[k];
      lap('aligned face');
      const eyes = await eyeState(s, img, landmarks);
      lap('eye state');
      const pose = poseFromLandmarks(landmarks);
      result.face = {
        box,
        landmarks,
        eyeClosed: eyes.closed,
        blur: laplacianVariance(gray, 112, 112),
        brightness: sum / gray.length,
        eyeBrightness: eyes.brightness,
        pose,
        yaw: estimateYaw(landmarks, box, pose.yaw),
        cover: eyeCover(gray),
      };
      lap('pose + eye cover + sharpness');
    }
    frames.push(result);
  }
  const withFace = frames.map((f, i) => ({ f, i })).filter((x) => x.f.face);
  withFace.sort((a, b) => frameQuality(b.f.face!) - frameQuality(a.f.face!));
  const best = withFace[0]?.i;
  const cueFrames = withFace.slice(0, Math.max(1, task.topFrames)).map((x) => x.i);
  const scores: number[] = [];
  const allScores: number[] = [];
  const skin: { upper: number; lower: number }[] = [];
  let moire = 0;
  let glare = 0;
  let border = 0;
  let scene: SceneFollow = { score: 0, frames: 0 };
  let embedding: Float32Array | undefined;
  if (best !== undefined) {
    const nets = await antispoofNets(task);
    for (const i of cueFrames) {
      const img = frameAt(i);
      const box = frames[i].face!.box;
      lap('frame copy + thumbnail');
      scores.push(await antispoofMean(nets, img, box));
      lap('anti-spoof nets');
      moire = Math.max(moire, moireScore(img, box));
      glare = Math.max(glare, glareShare(img, box));
      lap('moire + glare');
      // The embedding step also measures the skin of the aligned face; the best frame's embedding serves `cmnd`.
      const e = await embed(s, img, frames[i].face!.landmarks);
      skin.push({ upper: e.skinUpper, lower: e.skinLower });
      if (i === best && task.embed) embedding = e.embedding;
      lap('embedding (skin, cmnd)');
    }
    // The nets on up to ANTISPOOF_FRAMES face frames spread over the video (the best ones included): on real
    // videos single frames swing (a live webcam 0.1-0.8), their median does not.
    const faceOrder = withFace.map((x) => x.i).sort((a, b) => a - b);
    const spread = new Set(cueFrames);
    for (let k = 0; spread.size < Math.min(ANTISPOOF_FRAMES, faceOrder.length) && k < faceOrder.length; k++) {
      spread.add(faceOrder[Math.floor(((k + 0.5) * faceOrder.length) / Math.max(1, ANTISPOOF_FRAMES - cueFrames.length))] ?? faceOrder[k]);
    }
    for (const i of [...spread].sort((a, b) => a - b)) {
      const k = cueFrames.indexOf(i);
      allScores.push(k >= 0 ? scores[k] : await antispoofMean(nets, frameAt(i), frames[i].face!.box));
    }
    lap('anti-spoof nets');
    const img = frameAt(best);
    const face = frames[best].face!;
    const gray = toGray(img);
    const bytes = new Uint8Array(gray.length);
    for (let k = 0; k < gray.length; k++) bytes[k] = gray[k];
    const outline = await findCardOutline({ data: bytes, width, height }, { minAreaRatio: 0.08 });
    const cx = (face.box.x1 + face.box.x2) / 2;
    const cy = (face.box.y1 + face.box.y2) / 2;
    // A quadrilateral around the face, smaller than the frame: the edge of a phone or a sheet of paper.
    if (outline && outline.areaRatio < 0.9 && insideBounds(outline.corners, cx, cy)) border = outline.score;
    lap('border (card outline)');
    scene = sceneFollowsFace(
      (i) => task.frames.subarray(i * size, (i + 1) * size),
      width,
      height,
      frames.map((f) => f.face),
      best,
    );
    lap('scene');
  }
  return {
    width,
    height,
    frames,
    best,
    cueFrames,
    antispoof: scores,
    antispoofAll: allScores,
    skin,
    moire,
    glare,
    border,
    scene,
    embedding,
    ms: performance.now() - started,
  };
}

export default analyzeVideo;
