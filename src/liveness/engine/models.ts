import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelIntegrityError } from '../../face/index.js';

/**
 * The anti-spoof models liveness ships: MiniFASNetV2 and MiniFASNetV1SE
 * (Silent-Face-Anti-Spoofing, Apache-2.0), committed under models/liveness
 * with their licence; their mean per frame is the cue (as the original
 * project combines them). Chosen over fr_liveness.onnx on real videos
 * (docs/liveness.md, "Cues measured"). Each sha256 is checked before use.
 */
export const LIVENESS_ANTISPOOF = {
  v2: { file: 'MiniFASNetV2.onnx', sha256: '4eed38f0bde33c9b805942a5f25e42ce1161e2bda545254be622be957727794e' },
  v1se: { file: 'MiniFASNetV1SE.onnx', sha256: 'd819a69bac6b9ade2a0f4d9b60b618e1260f7bf3ba1fddff6c5d82131cb1083f' },
} as const;

/** models/liveness of the repository: walks up from this module (works from src/ under tsx and from dist/). */
export function livenessModelDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, 'models', 'liveness');
    if (fs.existsSync(path.join(candidate, LIVENESS_ANTISPOOF.v2.file))) return candidate;
    dir = path.dirname(dir);
  }
  return path.resolve('models', 'liveness');
}

/** One committed MiniFASNet's bytes, verified. */
export function loadLivenessAntispoof(which: keyof typeof LIVENESS_ANTISPOOF, dir = livenessModelDir()): Buffer {
  const spec = LIVENESS_ANTISPOOF[which];
  const file = path.join(dir, spec.file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new ModelIntegrityError(`Liveness anti-spoof model missing: ${file} (${(err as Error).message})`);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== spec.sha256) throw new ModelIntegrityError(`Liveness anti-spoof model altered: ${file} has sha256 ${sha}, expected ${spec.sha256}`);
  return bytes;
}
