import type { FastifyInstance } from 'fastify';
import type { Store } from '../platform/db/database.js';
import type { ServiceDeps } from '../platform/deps.js';
import { loadCreditConfig, type CreditConfig } from './config.js';
import { shippedDefaultModels } from './model/default-models.js';
import { ModelRegistry } from './model/registry.js';
import { creditRoutes } from './routes.js';
import { CreditService } from './service.js';
import { buildSources, type Sources } from './sources/index.js';
import { CreditStore } from './store.js';

export interface CreditParts {
  store: CreditStore;
  sources: Sources;
  models: ModelRegistry;
}

/** Composition root of the credit service's data side (also used by the CLI). */
export function createCreditParts(store: Store, config: CreditConfig): CreditParts {
  const creditStore = CreditStore.over(store.db);
  return {
    store: creditStore,
    sources: buildSources(config, creditStore, store.dialect),
    models: new ModelRegistry(creditStore, shippedDefaultModels()),
  };
}

export async function registerCredit(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const config = loadCreditConfig();
  const parts = createCreditParts(deps.store, config);
  const preload = await parts.models.preload();
  const engines = Object.fromEntries(Object.values(parts.sources).map((s) => [s.name, s.engine]));
  if (preload.failed.length) app.log.error({ failed: preload.failed }, 'credit: some stored models could not be loaded');
  app.log.info({ sources: engines, defaults: parts.models.defaultRefs, appModels: preload.loaded }, 'credit scoring ready (scorecard)');
  deps.lifecycle.addReadiness('credit', () => ({
    ok: preload.failed.length === 0,
    engine: 'scorecard (binned WoE + logistic regression)',
    sources: engines,
    default_models: parts.models.defaultRefs,
    app_models_loaded: preload.loaded,
    ...(preload.failed.length ? { failed_models: preload.failed } : {}),
  }));
  const service = new CreditService(parts.sources, parts.models, config, app.log);
  await app.register(creditRoutes, { prefix: '/dmp/creditscoring', service, credentials: deps.credentials, config });
}
