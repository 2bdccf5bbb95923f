import type { FastifyInstance } from 'fastify';
import type { Store } from '../platform/db/database.js';
import type { ServiceDeps } from '../platform/deps.js';
import { SampleListCache } from './list-cache.js';
import { nluRoutes } from './routes.js';
import { NluService } from './service.js';
import { NluStore } from './store.js';

/** Composition root of the training-data service: wires its store, service and routes. */
export function createNluService(store: Store): NluService {
  // The list cache is process-local: only sound when this process is the only writer (SQLite).
  return new NluService(NluStore.over(store.db), store.dialect === 'sqlite' ? new SampleListCache() : undefined);
}

/** Bulk imports carry whole training sets. */
const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

export async function registerNlu(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const service = createNluService(deps.store);
  await app.register(nluRoutes, { prefix: '/api/v3', service, credentials: deps.credentials, importBodyLimit: IMPORT_BODY_LIMIT });
}
