import { choiceSetting, ConfigError, integerSetting, numberSetting, textSetting, type Env } from '../platform/settings.js';

/** Inputs of the passive anti-spoof models liveness can run (see docs/face.md, "Liveness"). */
export const ANTISPOOF_INPUTS = ['minifasnet', 'faceplugin', 'minifasnet-v2', 'minifasnet-v1se'] as const;
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
  /** Analyses kept per process, keyed by the decoded frames' digest (0: none). */
  analysisCache: number;
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
    antispoofInput: choiceSetting(env, 'SAOLA_LIVENESS_ANTISPOOF_INPUT', 'minifasnet', ANTISPOOF_INPUTS),
    threads: integerSetting(env, 'SAOLA_LIVENESS_THREADS', Math.max(1, Math.min(poolThreads, 2)), 1, 64),
    analysisCache: integerSetting(env, 'SAOLA_LIVENESS_ANALYSIS_CACHE', 16, 0, 1024),
  };
}
