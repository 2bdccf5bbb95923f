import type { FastifyInstance } from 'fastify';
import { processFaceEngine } from '../face/index.js';
import type { ServiceDeps } from '../platform/deps.js';
import { locateFfmpeg, type Ffmpeg } from '../platform/media/ffmpeg.js';
import { loadLivenessConfig } from './config.js';
import { antispoofInfo, LivenessEngine } from './engine/index.js';
import { livenessRoutes } from './routes.js';
import { LivenessService } from './service.js';
import { LivenessThresholds } from './store.js';

/** Liveness (/dmp/checklive/v2, /dmp/liveness/v3): its own worker pool, the face engine for cmnd, ffmpeg found on first use. */
export async function registerLiveness(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const { engine: faces, cfg } = processFaceEngine(deps);
  const lcfg = loadLivenessConfig(process.env, deps.config.poolThreads);
  const antispoof = antispoofInfo(lcfg);
  const engine = new LivenessEngine(cfg, lcfg, { maxQueue: deps.config.poolQueue, maxWaitMs: deps.config.poolMaxWaitMs, timeoutMs: deps.config.poolTaskTimeoutMs });
  deps.lifecycle.onClose('liveness', () => engine.close());
  const log = app.log.child({ service: 'liveness' });
  log.info({ antispoof }, 'liveness: anti-spoof model');
  let ffmpeg: Promise<Ffmpeg> | undefined;
  const findFfmpeg = () => {
    ffmpeg ??= locateFfmpeg(lcfg.ffmpeg, 'SAOLA_LIVENESS_FFMPEG').then((f) => {
      log.info({ ffmpeg: f.source, binary: f.binary }, 'liveness: video decoder ready');
      return f;
    });
    ffmpeg.catch(() => (ffmpeg = undefined));
    return ffmpeg;
  };
  deps.lifecycle.addReadiness('liveness', async () => ({
    ffmpeg: await findFfmpeg().then(
      (f) => f.source,
      (err: Error) => `missing: ${err.message}`,
    ),
    antispoof,
    pool: engine.stats(),
  }));
  const service = new LivenessService(cfg, lcfg, faces, engine, findFfmpeg, new LivenessThresholds(deps.store.db));
  const common = { credentials: deps.credentials, maxVideoBytes: lcfg.maxVideoBytes, maxImageBytes: cfg.maxImageBytes, service };
  await app.register(livenessRoutes, { prefix: '/dmp/checklive/v2', ...common, version: 2 });
  await app.register(livenessRoutes, { prefix: '/dmp/liveness/v3', ...common, version: 3 });
}
