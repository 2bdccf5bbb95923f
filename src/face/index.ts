import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../platform/deps.js';
import { loadFaceConfig } from './config.js';
import { FaceEngine } from './engine/index.js';
import { searchEngine } from './search/index-cache.js';
import { faceMatchRoutes, faceSearchRoutes } from './routes.js';
import { FaceMatchService, FaceSearchService } from './service.js';
import { FaceStore } from './store.js';

/** Composition root of the face service: engine (worker pool), face search and face match. */
export async function registerFace(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const cfg = loadFaceConfig(process.env, deps.config.poolThreads);
  const engine = new FaceEngine(cfg, { maxQueue: deps.config.poolQueue, timeoutMs: deps.config.poolTaskTimeoutMs });
  deps.lifecycle.onClose('face-engine', () => engine.close());
  deps.lifecycle.addReadiness('face', async () => engine.describe());
  app.log.info({ face: { engine: 'onnxruntime-node (CPU)', threads: cfg.threads, search: searchEngine, models: 'faceplugin-face-recognition-js@0.0.1 (sha256 verified)' } }, 'face engine ready');
  const store = new FaceStore(deps.store);
  const common = { credentials: deps.credentials, maxImageBytes: cfg.maxImageBytes };
  await app.register(faceSearchRoutes, { prefix: '/dmp/facesearch/v2', ...common, service: new FaceSearchService(store, engine, cfg) });
  await app.register(faceMatchRoutes, { prefix: '/dmp/checkface/v1', ...common, service: new FaceMatchService(engine, cfg) });
}
