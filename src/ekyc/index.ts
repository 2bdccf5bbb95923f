import type { FastifyInstance } from 'fastify';
import { processFaceEngine, processFaceSearch } from '../face/index.js';
import { processLiveness } from '../liveness/index.js';
import type { ServiceDeps } from '../platform/deps.js';
import { processReader } from '../reader/index.js';
import { loadEkycConfig } from './config.js';
import { sweepEkyc } from './retention.js';
import { ReviewDesk } from './review.js';
import { ReviewStore } from './review-store.js';
import { ekycRoutes } from './routes.js';
import { EkycService, type EndedSession } from './service.js';
import { deploymentFlowSettings, EkycSettingsStore, FlowSettingsApi, flowSettingsError, FlowSettingsSchema, type FlowSettingsOverrides } from './settings.js';
import { SqlEkycStore } from './store.js';
import { EkycWebhooks, loadWebhookConfig } from './webhooks.js';

export { sweepEkyc } from './retention.js';
export { SqlEkycStore, type EkycStore } from './store.js';
export { ReviewDesk, ReviewDeskError, type DecisionRequest, type SessionQuery } from './review.js';
export { ReviewStore } from './review-store.js';
export { EkycWebhooks, loadWebhookConfig, webhookSignature, WebhookSettingsError, WEBHOOK_QUEUE } from './webhooks.js';

/** The session webhooks of the process's store and job queue. */
function webhooksOf(deps: Pick<ServiceDeps, 'store' | 'jobs'>): EkycWebhooks {
  return new EkycWebhooks(ReviewStore.over(deps.store.db), deps.jobs, loadWebhookConfig());
}

/** The review desk the console serves (its routes and sign-in are the console's). */
export function ekycReviewDesk(deps: Pick<ServiceDeps, 'store' | 'jobs' | 'blobs'>): ReviewDesk {
  return new ReviewDesk(ReviewStore.over(deps.store.db), deps.blobs, webhooksOf(deps));
}
export { EkycSettingsStore, deploymentFlowSettings } from './settings.js';

/** How often sessions past retention and fraud memory past its window are deleted. */
const SWEEP_MS = 3600_000;

/** Composition root of the eKYC flow: the reader, face engine and liveness the process holds, its store, routes and sweep. */
export async function registerEkyc(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const cfg = loadEkycConfig();
  const faces = processFaceEngine(deps);
  const stages = {
    reader: processReader(deps, app.log).service,
    faces: faces.engine,
    liveness: processLiveness(deps, app.log).service,
    search: await processFaceSearch(deps, app.log),
  };
  const store = SqlEkycStore.over(deps.store.db);
  const settings = new EkycSettingsStore(deps.store.db, deploymentFlowSettings(cfg));
  const sweep = setInterval(() => {
    void (async () => sweepEkyc(store, deps.blobs, { defaultMs: cfg.retentionMs, byApp: await settings.retentionOverrides() }))().catch((err: unknown) =>
      app.log.warn({ err, service: 'ekyc' }, 'eKYC retention sweep failed'),
    );
  }, SWEEP_MS);
  sweep.unref();
  deps.lifecycle.onClose('ekyc sweep', () => clearInterval(sweep));
  // The console edits the same document (its eKYC page), without importing this folder.
  deps.appSettings?.registerSection({
    key: 'ekyc.flow',
    label: 'eKYC flow',
    description: "What /session/init answers in sdk_config, selfie attempts per device type, a session's lifetime, retention and the fraud memory",
    schema: FlowSettingsSchema,
    defaults: settings.defaults as unknown as Record<string, unknown>,
    get: async (appCode) => (await settings.overrides(appCode)).overrides,
    check: flowSettingsError,
    set: async (appCode, values) => {
      await settings.replace(appCode, values as FlowSettingsOverrides);
    },
  });
  const webhooks = webhooksOf(deps);
  if (deps.config.runWorkers) {
    const worker = webhooks.start((err, job) => app.log.warn({ err, job_id: job?.id, attempt: job?.attempts, service: 'ekyc' }, 'eKYC webhook try failed'));
    deps.lifecycle.onClose('ekyc webhooks', () => worker.stop());
  }
  // The session has ended whatever happens to its event: a failure to queue it is logged, not answered.
  const sessionEnded = (s: EndedSession) =>
    webhooks.emit(s.appCode, s.id, 'session.completed', { status: s.status, code: s.code, document_type: s.documentType, completed_time: s.completedTime }).then(
      () => undefined,
      (err: unknown) => app.log.error({ err, service: 'ekyc', session_id: s.id }, 'eKYC session.completed event not queued'),
    );
  const service = new EkycService(store, deps.blobs, stages, cfg, settings, undefined, sessionEnded);
  await app.register(ekycRoutes, {
    service,
    settings: new FlowSettingsApi(settings, deps.corsOrigins),
    credentials: deps.credentials,
    maxImageBytes: faces.cfg.maxImageBytes,
  });
}
