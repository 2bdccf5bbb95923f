import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../platform/deps.js';
import { loadFaceConfig, loadLivenessConfig } from './config.js';
import { EMBEDDING_MODEL, FaceEngine } from './engine/index.js';
import { FaceIndexCache, searchEngine } from './search/index-cache.js';
import { BlobIndexSnapshots } from './search/snapshot.js';
import { antispoofInfo, LivenessEngine } from './liveness/engine.js';
import { LivenessService } from './liveness/service.js';
import { LivenessThresholds } from './liveness/thresholds.js';
import { locateFfmpeg, type Ffmpeg } from '../platform/media/ffmpeg.js';
import { faceMatchRoutes, faceSearchRoutes, livenessRoutes } from './routes.js';
import { facesInPhoto, FaceMatchService, FaceSearchService } from './service.js';
import { FaceStore } from './store.js';

/** Composition root of the face service: engine (worker pool), face search and face match. */
export async function registerFace(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const cfg = loadFaceConfig(process.env, deps.config.poolThreads);
  const engine = new FaceEngine(cfg, { maxQueue: deps.config.poolQueue, maxWaitMs: deps.config.poolMaxWaitMs, timeoutMs: deps.config.poolTaskTimeoutMs });
  deps.lifecycle.onClose('face-engine', () => engine.close());
  deps.lifecycle.addReadiness('face', async () => engine.describe());
  app.log.info({ face: { engine: 'onnxruntime-node (CPU)', threads: cfg.threads, search: searchEngine, models: 'faceplugin-face-recognition-js@0.0.1 (sha256 verified)' } }, 'face engine ready');
  const store = new FaceStore(deps.store);
  // Large collections' indexes are kept as snapshots in the blob store, so a new process starts without decoding every face.
  const snapshots = new BlobIndexSnapshots(deps.blobs, EMBEDDING_MODEL, (key, reason) =>
    app.log.warn({ face: { collection: key.collectionId, snapshot: 'ignored', reason } }, 'face index snapshot ignored; loading from the store'),
  );
  const cache = new FaceIndexCache({
    snapshots: cfg.indexSnapshotFrom > 0 ? snapshots : undefined,
    snapshotFrom: cfg.indexSnapshotFrom,
    onError: (err) => app.log.warn({ err }, 'face index snapshot failed'),
  });
  deps.lifecycle.onClose('face-index-snapshots', () => cache.idle());
  const common = { credentials: deps.credentials, maxImageBytes: cfg.maxImageBytes };
  await app.register(faceSearchRoutes, { prefix: '/dmp/facesearch/v2', ...common, service: new FaceSearchService(store, engine, cfg, cache) });
  await app.register(faceMatchRoutes, { prefix: '/dmp/checkface/v1', ...common, service: new FaceMatchService(engine, cfg) });
  // The console's face match playground draws the boxes the engine chose (the console never imports this folder).
  deps.playground?.offerFaceFinder((image) => facesInPhoto(engine, cfg, image));
  await registerLiveness(app, deps, cfg, engine);
}

/** Liveness (/dmp/checklive/v2, /dmp/liveness/v3): its own worker pool, ffmpeg found on first use. */
async function registerLiveness(app: FastifyInstance, deps: ServiceDeps, cfg: ReturnType<typeof loadFaceConfig>, faces: FaceEngine): Promise<void> {
  const lcfg = loadLivenessConfig(process.env, deps.config.poolThreads);
  const antispoof = antispoofInfo(lcfg);
  const engine = new LivenessEngine(cfg, lcfg, { maxQueue: deps.config.poolQueue, maxWaitMs: deps.config.poolMaxWaitMs, timeoutMs: deps.config.poolTaskTimeoutMs });
  deps.lifecycle.onClose('face-liveness', () => engine.close());
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
    ffmpeg: await findFfmpeg().then((f) => f.source, (err: Error) => `missing: ${err.message}`),
    antispoof,
    pool: engine.stats(),
  }));
  const service = new LivenessService(cfg, lcfg, faces, engine, findFfmpeg, new LivenessThresholds(deps.store.db));
  const common = { credentials: deps.credentials, maxVideoBytes: lcfg.maxVideoBytes, maxImageBytes: cfg.maxImageBytes, service };
  await app.register(livenessRoutes, { prefix: '/dmp/checklive/v2', ...common, version: 2 });
  await app.register(livenessRoutes, { prefix: '/dmp/liveness/v3', ...common, version: 3 });
}
