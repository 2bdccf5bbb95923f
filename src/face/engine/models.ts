import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The ONNX files of npm `faceplugin-face-recognition-js@0.0.1` (MIT) that the
 * engine uses, with their sha256: a file that does not match is refused.
 * See models/face/README.md.
 */
export const FACE_MODELS = {
  detect: { file: 'fr_detect.onnx', sha256: '6c0256ccd3164f844736a401faf936ec2930764a87ae39442180887d0c5c8854' },
  landmark: { file: 'fr_landmark.onnx', sha256: 'f10b0ba1d2a8a099adefede1ebf3733e44fe370715e7303dbeb7f59c02142258' },
  feature: { file: 'fr_feature.onnx', sha256: '87aacdfe57510db2af90c0251df680e8eec88f122ee94712121d09bcaaaf3581' },
  eye: { file: 'fr_eye.onnx', sha256: '1afcea006abc1ccac3c517022abde0aa092bed74ff3c9fe6878483ef9e6e38de' },
} as const;

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

/** Reads every model file and checks its sha256; throws ModelIntegrityError on a missing or altered file. */
export function loadVerifiedModels(modelDir = defaultModelDir()): Record<FaceModelName, Buffer> {
  const out = {} as Record<FaceModelName, Buffer>;
  for (const [name, spec] of Object.entries(FACE_MODELS) as [FaceModelName, (typeof FACE_MODELS)[FaceModelName]][]) {
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
