import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { LRUCache } from 'lru-cache';
import { WorkerPool } from '../../platform/pool/index.js';
import type { FaceConfig } from '../../face/index.js';
import type { LivenessConfig } from '../config.js';
import { ANTISPOOF_SPECS } from './antispoof.js';
import { LIVENESS_ANTISPOOF } from './models.js';
import type { DecodedFrames } from './video.js';
import type { LivenessAnalysis, LivenessTask } from './worker.js';

/** The anti-spoof model in use, for the start-up log and /readyz. */
export interface AntispoofInfo {
  file: string;
  sha256: string;
  input: string;
}

/** Describes (and hashes) the anti-spoof model liveness will run: the operator's file, else the committed MiniFASNet pair (or fr_liveness.onnx for input `faceplugin`). */
export function antispoofInfo(lcfg: LivenessConfig): AntispoofInfo {
  const spec = ANTISPOOF_SPECS[lcfg.antispoofInput];
  if (!lcfg.antispoofModel) {
    if (lcfg.antispoofInput === 'minifasnet')
      return {
        file: `models/liveness/${LIVENESS_ANTISPOOF.v2.file} + ${LIVENESS_ANTISPOOF.v1se.file} (sha256 verified)`,
        sha256: `${LIVENESS_ANTISPOOF.v2.sha256} ${LIVENESS_ANTISPOOF.v1se.sha256}`,
        input: spec.describe,
      };
    if (lcfg.antispoofInput === 'faceplugin')
      return { file: 'models/face/fr_liveness.onnx (sha256 verified)', sha256: 'afa783b7e902fdfcf323a7240cac2a1c580c25314ea4161129dc1b0d100dc32d', input: spec.describe };
    throw new Error(`SAOLA_LIVENESS_ANTISPOOF_INPUT=${lcfg.antispoofInput} needs SAOLA_LIVENESS_ANTISPOOF_MODEL (no such model is committed)`);
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(lcfg.antispoofModel);
  } catch (err) {
    throw new Error(`SAOLA_LIVENESS_ANTISPOOF_MODEL: cannot read ${lcfg.antispoofModel}: ${(err as Error).message}`);
  }
  return { file: lcfg.antispoofModel, sha256: createHash('sha256').update(bytes).digest('hex'), input: spec.describe };
}

/** The digest of decoded frames: what an analysis is a function of (the engine's models and settings are fixed per process). */
export function framesDigest(frames: DecodedFrames): string {
  return createHash('sha256').update(`${frames.width}x${frames.height}x${frames.count}:`).update(frames.data).digest('hex');
}

/**
 * Liveness analysis off the event loop: its own worker pool over the face
 * engine's models plus the anti-spoof model. The same frames (a client
 * retrying, v2 and v3 of one video) are analysed once: a bounded LRU of
 * analyses keyed by the frames' digest (`SAOLA_LIVENESS_ANALYSIS_CACHE`
 * entries). Only the analysis is shared; each request's answer (threshold,
 * codes, `cmnd`) is still worked out from it.
 */
export class LivenessEngine {
  private readonly pool: WorkerPool<LivenessTask, LivenessAnalysis>;
  private readonly cache?: LRUCache<string, Promise<LivenessAnalysis>>;
  private hits = 0;

  constructor(
    private readonly cfg: FaceConfig,
    private readonly lcfg: LivenessConfig,
    pool: { maxQueue: number; maxWaitMs?: number; timeoutMs: number },
  ) {
    this.pool = new WorkerPool<LivenessTask, LivenessAnalysis>({
      filename: new URL('./worker.js', import.meta.url),
      name: 'face-liveness',
      threads: lcfg.threads,
      maxQueue: pool.maxQueue,
      maxWaitMs: pool.maxWaitMs,
      timeoutMs: pool.timeoutMs,
    });
    if (lcfg.analysisCache > 0) this.cache = new LRUCache({ max: lcfg.analysisCache });
  }

  /** The analysis of `frames`, from the cache when the same frames were analysed before (with the embedding when asked). */
  analyze(frames: DecodedFrames, opts: { embed: boolean }): Promise<LivenessAnalysis> {
    if (!this.cache) return this.run(frames, opts.embed);
    const key = framesDigest(frames);
    const cached = this.cache.get(key);
    if (cached) {
      this.hits++;
      return cached;
    }
    // The embedding costs nothing extra (the best frame is embedded for the mask rule anyway), so a cached analysis serves `cmnd` too.
    const running = this.run(frames, true);
    this.cache.set(key, running);
    // A failed analysis (busy, timeout) is not remembered.
    running.catch(() => {
      if (this.cache?.get(key) === running) this.cache.delete(key);
    });
    return running;
  }

  private run(frames: DecodedFrames, embed: boolean): Promise<LivenessAnalysis> {
    return this.pool.run({
      frames: frames.data,
      width: frames.width,
      height: frames.height,
      count: frames.count,
      detectThreshold: this.cfg.detectThreshold,
      ...(this.cfg.modelDir ? { modelDir: this.cfg.modelDir } : {}),
      ...(this.lcfg.antispoofModel ? { antispoofModel: this.lcfg.antispoofModel } : {}),
      antispoofInput: this.lcfg.antispoofInput,
      topFrames: 3,
      embed,
    });
  }

  stats() {
    return this.pool.stats();
  }

  /** Analyses held and answers served from them (/readyz). */
  cacheStats(): { entries: number; hits: number } {
    return { entries: this.cache?.size ?? 0, hits: this.hits };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
