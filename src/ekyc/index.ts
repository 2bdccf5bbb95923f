import type { FastifyInstance } from 'fastify';
import { processFaceEngine } from '../face/index.js';
import { processLiveness } from '../liveness/index.js';
import type { ServiceDeps } from '../platform/deps.js';
import { processReader } from '../reader/index.js';
import { loadEkycConfig } from './config.js';
import { sweepEkyc } from './retention.js';
import { ekycRoutes } from './routes.js';
import { EkycService } from './service.js';
import { SqlEkycStore } from './store.js';

export { sweepEkyc } from './retention.js';
export { SqlEkycStore, type EkycStore } from './store.js';

/** How often sessions past retention and fraud memory past its window are deleted. */
const SWEEP_MS = 3600_000;

/** Composition root of the eKYC flow: the reader, face engine and liveness the process holds, its store, routes and sweep. */
export async function registerEkyc(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const cfg = loadEkycConfig();
  const faces = processFaceEngine(deps);
  const stages = { reader: processReader(deps, app.log).service, faces: faces.engine, liveness: processLiveness(deps, app.log).service };
  const store = SqlEkycStore.over(deps.store.db);
  const sweep = setInterval(() => {
    void sweepEkyc(store, deps.blobs, cfg.retentionMs).catch((err: unknown) => app.log.warn({ err, service: 'ekyc' }, 'eKYC retention sweep failed'));
  }, SWEEP_MS);
  sweep.unref();
  deps.lifecycle.onClose('ekyc sweep', () => clearInterval(sweep));
  const service = new EkycService(store, deps.blobs, stages, cfg);
  await app.register(ekycRoutes, { service, credentials: deps.credentials, maxImageBytes: faces.cfg.maxImageBytes });
}
