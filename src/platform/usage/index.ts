import type { FastifyInstance, onResponseHookHandler, preValidationHookHandler } from 'fastify';
import type { ServiceDeps } from '../deps.js';
import { PlatformError } from '../http/errors.js';
import { MemoryQuotaCounter, QuotaGate, type QuotaCounter } from './quota.js';
import { UsageRecorder } from './recorder.js';
import type { ServicePaths } from '../service-paths.js';
import { UsageStore } from './store.js';

export type { QuotaRow } from '../db/schema.js';
export { UsageStore, utcDay, type UsageReport } from './store.js';
export { usageMigrations } from './migrations.js';

export interface Metering {
  store: UsageStore;
  recorder: UsageRecorder;
  quotas: QuotaGate;
}

/**
 * Meters every authenticated request (application, service, endpoint, HTTP
 * status, latency) and enforces per-application quotas. Installed before the
 * services register, it gives each of their routes a metering and a quota
 * hook; a refusal is the platform's `busy` condition, so each service answers
 * its own 429 shape, with Retry-After.
 */
export async function installMetering(app: FastifyInstance, deps: ServiceDeps, paths: ServicePaths): Promise<Metering> {
  const store = new UsageStore(deps.store);
  const recorder = new UsageRecorder(store, app.log, 5000, 50_000, () => deps.credentials.recordUses(deps.credentials.drainUses()));
  deps.lifecycle.onClose('usage', () => recorder.close());
  let counter: QuotaCounter;
  if (deps.config.redisUrl) {
    // Shared counters when processes share a Redis; loaded only then, like the BullMQ queue.
    const [{ Redis }, { RedisQuotaCounter }] = await Promise.all([import('ioredis'), import('./quota.js')]);
    const redis = new Redis(deps.config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false });
    redis.on('error', () => {
      /* reconnects on its own; a failed count is answered by the request's error */
    });
    counter = new RedisQuotaCounter(redis, deps.config.redisPrefix);
  } else {
    counter = new MemoryQuotaCounter();
  }
  deps.lifecycle.onClose('quota counters', () => counter.close());
  const quotas = new QuotaGate(store, counter);

  // Each service route gets its own hooks, made once when the route is added: they know the
  // service and the endpoint, so a request pays no path matching and no routeOptions object
  // (callback style: an async hook costs a few microseconds a request).
  app.addHook('onRoute', (route) => {
    const service = paths.serviceOf(route.url ?? route.path ?? '');
    if (!service) return;
    const endpoint = `${Array.isArray(route.method) ? route.method.join(',') : route.method} ${route.url}`;
    const meter: onResponseHookHandler = (request, reply, done) => {
      if (request.appCode) recorder.record(request.appCode, service, endpoint, reply.statusCode, reply.elapsedTime);
      done();
    };
    // preValidation: after the service's auth hook (onRequest) has named the application, before any work.
    const limit: preValidationHookHandler = (request, reply, done) => {
      if (!request.appCode || !quotas.mayLimit) return done();
      quotas.check(request.appCode, service).then((refused) => {
        if (!refused) return done();
        reply.header('retry-after', String(refused.retryAfterS));
        done(
          new PlatformError(
            'busy',
            `Quota exceeded: this application may make ${refused.allowed} ${service} requests per ${refused.limit}; retry after ${refused.retryAfterS} s`,
          ),
        );
      }, done);
    };
    route.preValidation = [limit, ...asList(route.preValidation)];
    route.onResponse = [...asList(route.onResponse), meter];
  });
  return { store, recorder, quotas };
}

function asList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
