import { integerSetting, numberSetting, textSetting, type Env } from '../platform/settings.js';

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
  /** Face search `add`: embedding length (the face's `quality`) below which a face is not enrolled (0 = gate off). */
  minAddQuality: number;
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
    minAddQuality: numberSetting(env, 'SAOLA_FACE_MIN_ADD_QUALITY', 0, 0, 10, { integer: false }),
    searchThreshold: numberSetting(env, 'SAOLA_FACE_SEARCH_THRESHOLD', 0.85, 0, 1, { integer: false }),
    indexSnapshotFrom: integerSetting(env, 'SAOLA_FACE_INDEX_SNAPSHOT_FROM', 50_000, 0, 1_000_000_000),
    matchThreshold: numberSetting(env, 'SAOLA_FACE_MATCH_THRESHOLD', 80, 0, 100, { integer: false }),
  };
}
