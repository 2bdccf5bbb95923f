import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { processFaceEngine } from '../face/index.js';
import type { ServiceDeps } from '../platform/deps.js';
import { locateFfmpeg, type Ffmpeg } from '../platform/media/ffmpeg.js';
import { loadLivenessConfig, type LivenessConfig } from './config.js';
import { antispoofInfo, LivenessEngine } from './engine/index.js';
import { livenessRoutes } from './routes.js';
import { LivenessService } from './service.js';
import { LivenessThresholds } from './store.js';

export type { LivenessService, LivenessTrace } from './service.js';
export type { LivenessResult } from './responses.js';
export { renderV3 } from './responses.js';

const processServices = new WeakMap<ServiceDeps, { service: LivenessService; lcfg: LivenessConfig }>();

/**
 * The process's one liveness service (its worker pool, the face engine for cmnd, ffmpeg found on first use),
 * made by whichever service asks first: liveness's own routes and the eKYC flow's selfie step.
 */
export function processLiveness(deps: ServiceDeps, log: FastifyBaseLogger): { service: LivenessService; lcfg: LivenessConfig } {
  const found = processServices.get(deps);
  if (found) return found;
  const { engine: faces, cfg } = processFaceEngine(deps);
  const lcfg = loadLivenessConfig(process.env, deps.config.poolThreads);
  const antispoof = antispoofInfo(lcfg);
  const engine = new LivenessEngine(cfg, lcfg, { maxQueue: deps.config.poolQueue, maxWaitMs: deps.config.poolMaxWaitMs, timeoutMs: deps.config.poolTaskTimeoutMs });
  deps.lifecycle.onClose('liveness', () => engine.close());
  const llog = log.child({ service: 'liveness' });
  llog.info({ antispoof }, 'liveness: anti-spoof model');
  let ffmpeg: Promise<Ffmpeg> | undefined;
  const findFfmpeg = () => {
    ffmpeg ??= locateFfmpeg(lcfg.ffmpeg, 'SAOLA_LIVENESS_FFMPEG').then((f) => {
      llog.info({ ffmpeg: f.source, binary: f.binary }, 'liveness: video decoder ready');
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
    analysisCache: engine.cacheStats(),
  }));
  const made = { service: new LivenessService(cfg, lcfg, faces, engine, findFfmpeg, new LivenessThresholds(deps.store.db)), lcfg };
  processServices.set(deps, made);
  return made;
}

/** Liveness (/dmp/checklive/v2, /dmp/liveness/v3): its own worker pool, the face engine for cmnd, ffmpeg found on first use. */
export async function registerLiveness(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const { cfg } = processFaceEngine(deps);
  const { service, lcfg } = processLiveness(deps, app.log);
  const common = { credentials: deps.credentials, maxVideoBytes: lcfg.maxVideoBytes, maxImageBytes: cfg.maxImageBytes, service };
  await app.register(livenessRoutes, { prefix: '/dmp/checklive/v2', ...common, version: 2 });
  await app.register(livenessRoutes, { prefix: '/dmp/liveness/v3', ...common, version: 3 });
}
