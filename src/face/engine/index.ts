import { WorkerPool } from '../../platform/pool/index.js';
import type { ServiceDeps } from '../../platform/deps.js';
import { loadFaceConfig, type FaceConfig } from '../config.js';
import { boxArea } from './detect.js';
import { competingFaces, DEFAULT_SUBJECT_RULES } from './subject.js';
import { loadVerifiedModels } from './models.js';
import type { RecogniserSpec } from './recogniser.js';
import { FaceRecognisers } from '../recognisers.js';
import { searchEngine } from '../search/index-cache.js';
import type { AnalyzeResult, AnalyzeTask, PrimaryFace } from './worker.js';

export type { AnalyzeResult, PrimaryFace } from './worker.js';
export {
  competingFaces,
  DEFAULT_SUBJECT_RULES,
  FACE_GEOMETRY,
  implausibleGeometry,
  orderBySubject,
  subjectScore,
  type FaceCandidate,
  type SubjectRules,
} from './subject.js';
export { cosineToSimilarity, dot, EMBEDDING_MODEL, SIMILARITY_MAP, similarityToCosine, type SimilarityMap } from './similarity.js';
export type { RecogniserSpec } from './recogniser.js';

export type FaceVerdict =
  | { kind: 'ok'; face: PrimaryFace }
  | { kind: 'undecodable' }
  | { kind: 'noFace' }
  | { kind: 'severalFaces'; count: number }
  | { kind: 'tooSmall' }
  | { kind: 'blurry' }
  | { kind: 'occluded'; reason: string };

/** Closed-eye probability of both eyes above which the eyes count as hidden (sunglasses). */
export const EYES_HIDDEN_PROB = 0.9;
/** Eye crops darker than this fraction of the whole face's brightness: dark lenses, not just closed eyes. */
export const EYES_DARK_RATIO = 0.6;
/** Mask rule: skin on the forehead (>= this share) but little on the mouth and chin (< MASK_LOWER_SKIN). */
export const MASK_UPPER_SKIN = 0.5;
export const MASK_LOWER_SKIN = 0.3;

/**
 * The quality gates shared by every caller, on the subject's face (the engine
 * picks it by size, centrality and confidence). `single` (search and face
 * match): another face comparable in size and sharpness to the subject's
 * makes it unclear whose photo this is and is refused.
 */
export function assessFace(
  result: AnalyzeResult,
  cfg: Pick<FaceConfig, 'minFacePx' | 'secondFaceRatio' | 'minBlurVariance'> & Partial<Pick<FaceConfig, 'secondFaceSharpness'>>,
  opts: { single: boolean },
): FaceVerdict {
  if (!result.ok) return { kind: 'undecodable' };
  if (result.faces.length === 0 || !result.primary) return { kind: 'noFace' };
  if (opts.single) {
    const [subject, ...rest] = result.faces;
    const others = competingFaces(subject, rest, {
      secondFaceRatio: cfg.secondFaceRatio,
      secondFaceSharpness: cfg.secondFaceSharpness ?? DEFAULT_SUBJECT_RULES.secondFaceSharpness,
    });
    if (others.length > 0) return { kind: 'severalFaces', count: others.length + 1 };
  }
  const face = result.primary;
  // minFacePx is in pixels of the working image (photos are worked on at most 1600 px on the long side).
  if (Math.min(face.box.x2 - face.box.x1, face.box.y2 - face.box.y1) < cfg.minFacePx) return { kind: 'tooSmall' };
  if (cfg.minBlurVariance > 0 && face.blur < cfg.minBlurVariance) return { kind: 'blurry' };
  if (face.eyeClosed[0] >= EYES_HIDDEN_PROB && face.eyeClosed[1] >= EYES_HIDDEN_PROB && face.eyeBrightness < EYES_DARK_RATIO * Math.max(1, face.brightness)) {
    return { kind: 'occluded', reason: 'eyes hidden by dark glasses' };
  }
  // Needs colour: a grayscale photo has no skin anywhere, so the forehead condition keeps it out.
  if (face.skinUpper >= MASK_UPPER_SKIN && face.skinLower < MASK_LOWER_SKIN) return { kind: 'occluded', reason: 'mouth and chin covered (mask)' };
  return { kind: 'ok', face };
}

/**
 * "The photo is an ID card" (410): a card-shaped outline covering at least a
 * quarter of the photo with the face inside it and small against the card.
 */
export function looksLikeIdCard(result: AnalyzeResult): boolean {
  if (!result.ok || !result.card || !result.primary) return false;
  const { card, primary } = result;
  // A cut-off outline is weaker evidence (door frames, monitors): ask more of its shape.
  if (card.areaRatio < 0.2 || card.score < (card.touchesBorder ? 0.85 : 0.65) || !card.faceInside) return false;
  // On an ID card the portrait is small against the card (about 5% of it); a selfie's face is not.
  const faceRatio = boxArea(primary.box) / (result.width * result.height);
  return faceRatio < card.areaRatio * 0.2;
}

/** The face engine: a pool of worker threads, each holding the ONNX sessions. */
export class FaceEngine {
  private readonly pool: WorkerPool<AnalyzeTask, AnalyzeResult>;

  constructor(
    private readonly cfg: FaceConfig,
    pool: { maxQueue: number; maxWaitMs?: number; timeoutMs: number },
    /** The recognisers installed beside the shipped one, and the active one. */
    readonly recognisers: FaceRecognisers = new FaceRecognisers(undefined, cfg.modelDir),
  ) {
    // Refuse to start on a missing or altered model file (the workers check again).
    loadVerifiedModels(cfg.modelDir);
    this.pool = new WorkerPool<AnalyzeTask, AnalyzeResult>({
      filename: new URL('./worker.js', import.meta.url),
      name: 'face',
      threads: cfg.threads,
      maxQueue: pool.maxQueue,
      maxWaitMs: pool.maxWaitMs,
      timeoutMs: pool.timeoutMs,
    });
  }

  /** One photo's faces; the subject embedded by `recogniser` (default: the shipped one), with its aligned crop when `keepCrop`. */
  analyze(image: Buffer, opts: { checkCard: boolean; recogniser?: RecogniserSpec; keepCrop?: boolean }): Promise<AnalyzeResult> {
    const copy = new Uint8Array(image.length);
    copy.set(image);
    return this.pool.run(
      {
        image: copy,
        detectThreshold: this.cfg.detectThreshold,
        checkCard: opts.checkCard,
        subject: { centreWeight: this.cfg.subjectCentreWeight, secondFaceSharpness: this.cfg.secondFaceSharpness },
        ...(this.cfg.modelDir ? { modelDir: this.cfg.modelDir } : {}),
        ...(opts.recogniser ? { recogniser: opts.recogniser } : {}),
        ...(opts.keepCrop ? { keepCrop: true } : {}),
      },
      { transferList: [copy.buffer] },
    );
  }

  /** Whether `n` more analyses would be taken now (see WorkerPool.admits). */
  admits(n: number): boolean {
    return this.pool.admits(n);
  }

  describe(): Record<string, unknown> {
    return {
      engine: 'onnxruntime-node (CPU)',
      search: searchEngine,
      models: 'faceplugin-face-recognition-js@0.0.1',
      ...this.recognisers.describe(),
      pool: this.pool.stats(),
      lastError: this.pool.lastError,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** JPEG by its magic bytes (FF D8 FF). */
export function isJpeg(buf: Buffer): boolean {
  return buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff;
}

const processEngines = new WeakMap<ServiceDeps, { engine: FaceEngine; cfg: FaceConfig }>();

/**
 * The process's one face engine (a worker pool holding the models), made by whichever service asks first:
 * face search and match, and liveness for its cmnd comparison. Closed with the process's lifecycle.
 */
export function processFaceEngine(deps: ServiceDeps): { engine: FaceEngine; cfg: FaceConfig } {
  let found = processEngines.get(deps);
  if (!found) {
    const cfg = loadFaceConfig(process.env, deps.config.poolThreads);
    const recognisers = new FaceRecognisers(deps.config.dataDir, cfg.modelDir);
    const engine = new FaceEngine(cfg, { maxQueue: deps.config.poolQueue, maxWaitMs: deps.config.poolMaxWaitMs, timeoutMs: deps.config.poolTaskTimeoutMs }, recognisers);
    deps.lifecycle.onClose('face-engine', () => engine.close());
    deps.lifecycle.addReadiness('face', async () => engine.describe());
    found = { engine, cfg };
    processEngines.set(deps, found);
  }
  return found;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG by its 8-byte signature. */
export function isPng(buf: Buffer): boolean {
  return buf.length >= PNG_SIGNATURE.length && buf.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}

/**
 * The types face search and face match take: JPEG and PNG, told by their
 * bytes (the original's 408 names both and its own sample sends a PNG); the
 * part's declared mime type is not trusted either way.
 */
export function isAcceptedImage(buf: Buffer): boolean {
  return isJpeg(buf) || isPng(buf);
}
