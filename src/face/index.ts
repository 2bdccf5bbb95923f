import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../platform/deps.js';
import { EMBEDDING_MODEL, processFaceEngine } from './engine/index.js';
import { faceMatchRoutes, faceSearchRoutes } from './routes.js';
import { FaceIndexCache, searchEngine } from './search/index-cache.js';
import { BlobIndexSnapshots } from './search/snapshot.js';
import { faceCollectionsView, facesInPhoto, FaceMatchService, FaceSearchService } from './service.js';
import { FaceStore } from './store.js';
import { FaceCrops } from './crops.js';

export { faceModelLines } from './models.js';

// The face service's public entry: what other services (liveness) may use of it. Liveness runs the engine's
// steps in its own worker threads (the kit) and shares this process's face pool for `cmnd`.
export { loadFaceConfig, type FaceConfig } from './config.js';
export {
  type AnalyzeResult,
  cosineToSimilarity,
  dot,
  EYES_DARK_RATIO,
  EYES_HIDDEN_PROB,
  FaceEngine,
  MASK_LOWER_SKIN,
  MASK_UPPER_SKIN,
  processFaceEngine,
} from './engine/index.js';
export * from './engine/kit.js';
export { ModelIntegrityError } from './engine/models.js';
export type { FaceSearchService, SearchHit } from './service.js';

const processSearch = new WeakMap<ServiceDeps, Promise<FaceSearchService>>();

/**
 * The process's face search (one index cache per process, shared by the face
 * service's routes and the eKYC flow's `face_search`), built once per `deps`.
 */
export function processFaceSearch(deps: ServiceDeps, log: FastifyBaseLogger): Promise<FaceSearchService> {
  let found = processSearch.get(deps);
  if (!found) {
    found = (async () => {
      const { engine, cfg } = processFaceEngine(deps);
      const store = new FaceStore(deps.store);
      engine.recognisers.useStoredMaps(await store.similarityMaps());
      // Large collections' indexes are kept as snapshots in the blob store, so a new process starts without decoding every face.
      const snapshots = new BlobIndexSnapshots(deps.blobs, EMBEDDING_MODEL, (key, reason) =>
        log.warn({ face: { collection: key.collectionId, snapshot: 'ignored', reason } }, 'face index snapshot ignored; loading from the store'),
      );
      const cache = new FaceIndexCache({
        snapshots: cfg.indexSnapshotFrom > 0 ? snapshots : undefined,
        snapshotFrom: cfg.indexSnapshotFrom,
        onError: (err) => log.warn({ err }, 'face index snapshot failed'),
      });
      deps.lifecycle.onClose('face-index-snapshots', () => cache.idle());
      return new FaceSearchService(store, engine, cfg, cache, new FaceCrops(deps.blobs));
    })();
    processSearch.set(deps, found);
  }
  return found;
}

/** Composition root of the face service: engine (worker pool), face search and face match. */
export async function registerFace(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const { engine, cfg } = processFaceEngine(deps);
  app.log.info(
    {
      face: {
        engine: 'onnxruntime-node (CPU)',
        threads: cfg.threads,
        search: searchEngine,
        models: 'faceplugin-face-recognition-js@0.0.1 (sha256 verified)',
        recogniser: engine.recognisers.active.name,
      },
    },
    'face engine ready',
  );
  const search = await processFaceSearch(deps, app.log);
  const common = { credentials: deps.credentials, maxImageBytes: cfg.maxImageBytes };
  await app.register(faceSearchRoutes, { prefix: '/dmp/facesearch/v2', ...common, service: search });
  await app.register(faceMatchRoutes, { prefix: '/dmp/checkface/v1', ...common, service: new FaceMatchService(engine, cfg) });
  // The console's face match playground draws the boxes the engine chose (the console never imports this folder).
  deps.playground?.offerFaceFinder((image) => facesInPhoto(engine, cfg, image));
  // ...and lists an application's collections with the recogniser each is embedded by.
  const store = new FaceStore(deps.store);
  deps.playground?.offerFaceCollections((appCode) => faceCollectionsView(store, engine.recognisers, appCode));
}
