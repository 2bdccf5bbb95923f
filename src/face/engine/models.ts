import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import manifest from './models.json' with { type: 'json' };
import { ARCFACE_112 } from './align.js';
import type { RecogniserSpec } from './recogniser.js';

/**
 * The ONNX files the engine uses, with their sha256 (recorded in models.json,
 * which scripts/fetch-face-models.mjs and scripts/prepare-face-models.ts also
 * read): a file that does not match is refused. All come from npm
 * `faceplugin-face-recognition-js@0.0.1` (MIT); `feature` is
 * fr_feature_opt.onnx, derived offline from fr_feature.onnx (same function,
 * faster graph). See models/face/README.md.
 */
export const FACE_MODELS = {
  detect: spec('fr_detect.onnx'),
  landmark: spec('fr_landmark.onnx'),
  feature: spec('fr_feature_opt.onnx'),
  eye: spec('fr_eye.onnx'),
  /** Passive anti-spoof and head pose: verified now, run by liveness. */
  liveness: spec('fr_liveness.onnx'),
  pose: spec('fr_pose.onnx'),
} as const;

/** Where the files come from, for logs and /readyz. */
export const MODELS_VERSION: string = manifest.version;

function spec(file: keyof typeof manifest.files): { file: string; sha256: string } {
  return { file, sha256: manifest.files[file].sha256 };
}

export type FaceModelName = keyof typeof FACE_MODELS;

export class ModelIntegrityError extends Error {
  override name = 'ModelIntegrityError';
}

/** models/face of the repository: walks up from this module (works from src/ under tsx and from dist/). */
export function defaultModelDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, 'models', 'face');
    if (fs.existsSync(path.join(candidate, FACE_MODELS.detect.file))) return candidate;
    dir = path.dirname(dir);
  }
  return path.resolve('models', 'face');
}

/**
 * Checks the sha256 of every model file (or of `only`) and returns their
 * bytes; throws ModelIntegrityError on a missing or altered file.
 */
export function loadVerifiedModels<N extends FaceModelName = FaceModelName>(modelDir = defaultModelDir(), only?: readonly N[]): Record<N, Buffer> {
  const out = {} as Record<N, Buffer>;
  const names = only ?? (Object.keys(FACE_MODELS) as N[]);
  for (const name of names) {
    const spec = FACE_MODELS[name];
    const file = path.join(modelDir, spec.file);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch {
      throw new ModelIntegrityError(`Face model ${file} is missing (see models/face/README.md)`);
    }
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== spec.sha256) {
      throw new ModelIntegrityError(`Face model ${file} has sha256 ${digest}, expected ${spec.sha256}: refusing to load it`);
    }
    out[name] = bytes;
  }
  return out;
}

/** The name the shipped recogniser's embeddings carry (face_embeddings.model); its similarity map is SIMILARITY_MAP. */
export const SHIPPED_RECOGNISER = 'faceplugin-fr_feature-512';

/** fr_feature as a recogniser: 112x112 RGB on the ArcFace template, (p - 127.5) / 128, 512 values. */
export function shippedRecogniser(modelDir = defaultModelDir()): RecogniserSpec {
  return {
    name: SHIPPED_RECOGNISER,
    file: path.join(modelDir, FACE_MODELS.feature.file),
    sha256: FACE_MODELS.feature.sha256,
    input: {
      name: 'input',
      width: 112,
      height: 112,
      layout: 'nchw',
      colour: 'rgb',
      mean: [127.5, 127.5, 127.5],
      std: [128, 128, 128],
      template: ARCFACE_112.map(([x, y]) => [x, y]),
    },
    output: { name: 'output', size: 512 },
  };
}

/**
 * The aligned face every candidate recogniser must embed before it is
 * installed: Grace Hopper's public-domain portrait (test/fixtures/face/SOURCES.md)
 * as the engine keeps enrolled faces (recogniser.ts, CROP_SIZE).
 */
export function testFaceFile(modelDir?: string): string {
  const own = modelDir && path.join(modelDir, TEST_FACE);
  return own && fs.existsSync(own) ? own : path.join(defaultModelDir(), TEST_FACE);
}
const TEST_FACE = 'test-face.png';

/** The sha256 of a file, streamed in one read (recognisers are at most a few hundred MB). */
export function fileSha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
