import type { FastifyInstance } from 'fastify';
import type { Credentials } from '../platform/auth/credentials.js';
import type { Store } from '../platform/db/database.js';
import { nluRoutes } from './routes.js';
import { NluService } from './service.js';
import { NluStore } from './store.js';

/** Composition root of the training-data service: wires its store, service and routes. */
export function createNluService(store: Store): NluService {
  return new NluService(new NluStore(store.db));
}

export async function registerNlu(
  app: FastifyInstance,
  deps: { store: Store; credentials: Credentials; importBodyLimit: number },
): Promise<void> {
  const service = createNluService(deps.store);
  await app.register(nluRoutes, { prefix: '/api/v3', service, credentials: deps.credentials, importBodyLimit: deps.importBodyLimit });
}
