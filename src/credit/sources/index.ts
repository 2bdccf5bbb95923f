import type { CreditConfig } from '../config.js';
import type { CreditStore } from '../store.js';
import { AlphaFeatureStore } from './alpha.js';
import { HttpFeatureSource } from './http.js';
import { NoDataSource, type FeatureSource, type SourceName } from './source.js';

export type Sources = Record<SourceName, FeatureSource>;

/** The three sources as configured: alpha is the feature store; beta and gamma are HTTP when configured, else empty. */
export function buildSources(config: CreditConfig, store: CreditStore, dialect: string): Sources {
  return {
    alpha: new AlphaFeatureStore(store, dialect),
    beta: config.beta ? new HttpFeatureSource('beta', config.beta, config.httpTimeoutMs) : new NoDataSource('beta'),
    gamma: config.gamma ? new HttpFeatureSource('gamma', config.gamma, config.httpTimeoutMs) : new NoDataSource('gamma'),
  };
}
