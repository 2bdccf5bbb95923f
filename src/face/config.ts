import { choiceSetting, ConfigError, integerSetting, numberSetting, textSetting, type Env } from '../platform/settings.js';

/** The face service's own settings, read from SAOLA_FACE_* variables (documented in docs/face.md). */
export interface FaceConfig {
  /** Folder holding the ONNX files; default: the repository's models/face. */
  modelDir?: string;
  /** Worker threads running face inference (each loads the models once). */
  threads: number;
  /** Largest upload accepted by face search and face match, bytes (spec: 5 MB). */
  maxImageBytes: number;
  /** Detector confidence needed to count a face. */
  detectThreshold: number;
  /** Smallest face side accepted, pixels of the uploaded image. */
  minFacePx: number;
  /** Face search: another face at least this fraction of the subject's area... */
  secondFaceRatio: number;
  /** ...and at least this fraction of its sharpness makes "several faces" (a blurred background face does not). */
  secondFaceSharpness: number;
  /** Subject choice: 0-1, how much a face away from the photo's centre loses against a centred one (score = size x confidence x (1 - w x off-centre)). */
  subjectCentreWeight: number;
  /** Laplacian variance of the aligned face below which it is "too blurry" (0 = gate off). */
  minBlurVariance: number;
  /** Face search: default similarity threshold (0-1). */
  searchThreshold: number;
  /** Face match: similarity (0-100) from which isMatch is true. */
  matchThreshold: number;
  /** Collections with at least this many faces keep an index snapshot in the blob store (0: no snapshots). */
  indexSnapshotFrom: number;
}

export function loadFaceConfig(env: Env = process.env, poolThreads = 2): FaceConfig {
  return {
    modelDir: textSetting(env, 'SAOLA_FACE_MODEL_DIR'),
    threads: integerSetting(env, 'SAOLA_FACE_THREADS', Math.max(1, Math.min(poolThreads, 4)), 1, 64),
    maxImageBytes: integerSetting(env, 'SAOLA_FACE_MAX_IMAGE_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    detectThreshold: numberSetting(env, 'SAOLA_FACE_DETECT_THRESHOLD', 0.7, 0.05, 0.99, { integer: false }),
    minFacePx: integerSetting(env, 'SAOLA_FACE_MIN_FACE_PX', 40, 8, 2000),
    secondFaceRatio: numberSetting(env, 'SAOLA_FACE_SECOND_FACE_RATIO', 0.25, 0.01, 1, { integer: false }),
    secondFaceSharpness: numberSetting(env, 'SAOLA_FACE_SECOND_FACE_SHARPNESS', 0.3, 0, 1, { integer: false }),
    subjectCentreWeight: numberSetting(env, 'SAOLA_FACE_SUBJECT_CENTRE_WEIGHT', 0.5, 0, 1, { integer: false }),
    minBlurVariance: numberSetting(env, 'SAOLA_FACE_MIN_BLUR_VARIANCE', 0, 0, 100_000, { integer: false }),
    searchThreshold: numberSetting(env, 'SAOLA_FACE_SEARCH_THRESHOLD', 0.85, 0, 1, { integer: false }),
    indexSnapshotFrom: integerSetting(env, 'SAOLA_FACE_INDEX_SNAPSHOT_FROM', 50_000, 0, 1_000_000_000),
    matchThreshold: numberSetting(env, 'SAOLA_FACE_MATCH_THRESHOLD', 80, 0, 100, { integer: false }),
  };
}

/** Inputs of the passive anti-spoof models liveness can run (see docs/face.md, "Liveness"). */
export const ANTISPOOF_INPUTS = ['faceplugin', 'minifasnet-v2', 'minifasnet-v1se'] as const;
export type AntispoofInput = (typeof ANTISPOOF_INPUTS)[number];

/** Liveness (/dmp/checklive/v2, /dmp/liveness/v3) settings, from SAOLA_LIVENESS_* (documented in docs/face.md). */
export interface LivenessConfig {
  /** Largest video upload, bytes (spec: 10 MB). */
  maxVideoBytes: number;
  /** Accepted durations, seconds, per version (spec: v2 5-10 s, v3 5-6 s). */
  v2Seconds: [number, number];
  v3Seconds: [number, number];
  /** v3 refuses videos below this frame rate (spec: 25 fps). */
  v3MinFps: number;
  /** Videos whose shorter side is below this are refused as invalid input (both versions). */
  minShortSide: number;
  /** v3 warns (does not fail) below this shorter side (720p). */
  v3WarnShortSide: number;
  /** Frames per second decoded and analysed. */
  sampleFps: number;
  /** Longest side of the analysed frames, pixels. */
  frameSide: number;
  /** Longest ffmpeg may take to read or decode one video. */
  decodeTimeoutMs: number;
  /** `auto`: ffmpeg from the PATH, else the npm-shipped binary. */
  ffmpeg: 'auto' | 'native' | 'npm';
  /** Face box's height over the frame's shorter side, below which the face is too small (411). */
  minFaceRatio: number;
  /** Median Laplacian variance of the aligned faces below which the video is too blurry (412). */
  minBlurVariance: number;
  /** Live probability from which a video is live. */
  liveThreshold: number;
  /** Half width of the band around liveThreshold answered with need_to_review true. */
  reviewMargin: number;
  /** An operator's anti-spoof ONNX model (replaces fr_liveness.onnx) and the input it expects. */
  antispoofModel?: string;
  antispoofInput: AntispoofInput;
  /** Worker threads for liveness analysis. */
  threads: number;
}

export function loadLivenessConfig(env: Env = process.env, poolThreads = 2): LivenessConfig {
  const range = (name: string, lo: number, hi: number): [number, number] => {
    const min = numberSetting(env, `${name}_MIN_SECONDS`, lo, 0.5, 600, { integer: false });
    const max = numberSetting(env, `${name}_MAX_SECONDS`, hi, 0.5, 600, { integer: false });
    if (max < min) throw new ConfigError(`${name}_MAX_SECONDS (${max}) is below ${name}_MIN_SECONDS (${min})`);
    return [min, max];
  };
  const antispoofModel = textSetting(env, 'SAOLA_LIVENESS_ANTISPOOF_MODEL');
  return {
    maxVideoBytes: integerSetting(env, 'SAOLA_LIVENESS_MAX_VIDEO_BYTES', 10 * 1024 * 1024, 1024, 500 * 1024 * 1024),
    v2Seconds: range('SAOLA_LIVENESS_V2', 5, 10),
    v3Seconds: range('SAOLA_LIVENESS_V3', 5, 6),
    v3MinFps: numberSetting(env, 'SAOLA_LIVENESS_V3_MIN_FPS', 25, 1, 240, { integer: false }),
    minShortSide: integerSetting(env, 'SAOLA_LIVENESS_MIN_SHORT_SIDE', 240, 16, 4320),
    v3WarnShortSide: integerSetting(env, 'SAOLA_LIVENESS_V3_WARN_SHORT_SIDE', 720, 16, 4320),
    sampleFps: numberSetting(env, 'SAOLA_LIVENESS_SAMPLE_FPS', 5, 1, 30, { integer: false }),
    frameSide: integerSetting(env, 'SAOLA_LIVENESS_FRAME_SIDE', 640, 160, 1920),
    decodeTimeoutMs: integerSetting(env, 'SAOLA_LIVENESS_DECODE_TIMEOUT_MS', 20_000, 100, 600_000),
    ffmpeg: choiceSetting(env, 'SAOLA_LIVENESS_FFMPEG', 'auto', ['auto', 'native', 'npm'] as const),
    minFaceRatio: numberSetting(env, 'SAOLA_LIVENESS_MIN_FACE_RATIO', 0.2, 0, 1, { integer: false }),
    minBlurVariance: numberSetting(env, 'SAOLA_LIVENESS_MIN_BLUR_VARIANCE', 30, 0, 100_000, { integer: false }),
    liveThreshold: numberSetting(env, 'SAOLA_LIVENESS_THRESHOLD', 0.5, 0, 1, { integer: false }),
    reviewMargin: numberSetting(env, 'SAOLA_LIVENESS_REVIEW_MARGIN', 0.2, 0, 0.5, { integer: false }),
    antispoofModel,
    antispoofInput: choiceSetting(env, 'SAOLA_LIVENESS_ANTISPOOF_INPUT', 'faceplugin', ANTISPOOF_INPUTS),
    threads: integerSetting(env, 'SAOLA_LIVENESS_THREADS', Math.max(1, Math.min(poolThreads, 2)), 1, 64),
  };
}
