import type { FastifyInstance } from 'fastify';
import type { Store } from '../platform/db/database.js';
import type { ServiceDeps } from '../platform/deps.js';
import type { PurgeHook } from '../platform/purge.js';
import { WorkerPool } from '../platform/pool/index.js';
import { integerSetting } from '../platform/settings.js';
import { SampleListCache } from './list-cache.js';
import type { TrainRequest } from './model/model.js';
import { ModelStore } from './model-store.js';
import { DEFAULT_RECHECK_MS, modelFolder, NluModelService, TRAIN_QUEUE, type TrainJobPayload } from './model-service.js';
import { createPredictor, DEFAULT_INLINE_CHARS, defaultPredictThreads } from './predictor.js';
import { nluRoutes } from './routes.js';
import { NluService } from './service.js';
import { NluStore } from './store.js';

/** Composition root of the training-data service: wires its store, service and routes. */
export function createNluService(store: Store): NluService {
  // The list cache is per process; the data version it checks is shared by every process on the store.
  return new NluService(NluStore.over(store.db, store.dialect), new SampleListCache());
}

/** Bulk imports carry whole training sets. */
const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;
/** A training of tens of thousands of samples takes minutes on a loaded machine; past this it has hung. */
const TRAIN_TIMEOUT_MS = 30 * 60 * 1000;

export async function registerNlu(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const service = createNluService(deps.store);
  // How stale a prediction's model and threshold may be when another process changed them (this process's changes: none).
  const recheckMs = integerSetting(process.env, 'SAOLA_NLU_MODEL_RECHECK_MS', DEFAULT_RECHECK_MS, 0, 60_000);
  // Predictions of long texts run on worker threads (none on one core, or with 0: all on the event loop); a thread starts
  // with the first such prediction. Short texts (a chat utterance) cost the engine less than the hop: on the event loop.
  const predictor = createPredictor(
    integerSetting(process.env, 'SAOLA_NLU_PREDICT_THREADS', defaultPredictThreads(), 0, 64),
    integerSetting(process.env, 'SAOLA_NLU_PREDICT_INLINE_CHARS', DEFAULT_INLINE_CHARS, 0, 1_000_000),
  );
  deps.lifecycle.onClose('nlu-predict-pool', () => predictor.close());
  const models = new NluModelService(NluStore.over(deps.store.db), new ModelStore(deps.store.db), deps.jobs, deps.blobs, recheckMs, predictor);
  const log = app.log.child({ service: 'nlu' });
  if (deps.config.runWorkers) {
    // One training thread: trainings are CPU-bound and rare; requests keep the other cores.
    let pool: WorkerPool<TrainRequest, string> | undefined;
    const trainer = (request: TrainRequest) =>
      (pool ??= new WorkerPool<TrainRequest, string>({
        filename: new URL('./model/train-worker.js', import.meta.url),
        name: 'nlu-train',
        threads: 1,
        maxQueue: 64,
        timeoutMs: TRAIN_TIMEOUT_MS,
      })).run(request);
    const worker = deps.jobs.work<TrainJobPayload>(TRAIN_QUEUE, (job) => models.runTraining(job.payload, trainer, job.attempts >= job.maxAttempts), {
      concurrency: 1,
      onError: (error, job) => log.warn({ job_id: job?.id, err: error }, 'nlu training attempt failed'),
    });
    deps.lifecycle.onClose('nlu-train-worker', () => worker.stop());
    deps.lifecycle.onClose('nlu-train-pool', () => pool?.close());
  }
  deps.lifecycle.addReadiness('nlu', async () => ({ ok: true, training: await deps.jobs.counts(TRAIN_QUEUE), predicting: predictor.stats() }));
  await app.register(nluRoutes, { prefix: '/api/v3', service, models, credentials: deps.credentials, importBodyLimit: IMPORT_BODY_LIMIT });
}

/** Model documents are blobs under the application's folder; the rows go with the table sweep. */
export const purgeNluModels: PurgeHook = async (appCode, { blobs }) => ({
  blobs: await blobs.deleteOlderThan(modelFolder(appCode), new Date(8.64e15)),
});
