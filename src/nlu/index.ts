import { MessageChannel } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../platform/db/database.js';
import type { ServiceDeps } from '../platform/deps.js';
import type { Job, JobContext } from '../platform/jobs/queue.js';
import type { PurgeHook } from '../platform/purge.js';
import { WorkerPool } from '../platform/pool/index.js';
import { loadNluConfig } from './config.js';
import { SampleListCache } from './list-cache.js';
import type { TrainProgress } from './engine/model.js';
import type { TrainTask } from './engine/train-worker.js';
import { createPredictor } from './predictor.js';
import { modelFolder, REPORT_QUEUE, TRAIN_QUEUE, type Reporter, type ReportJobPayload, type Trainer, type TrainJobPayload } from './training.js';
import { nluRoutes } from './routes.js';
import { NluService } from './service.js';
import { NluStore } from './store.js';
import { createNluModels } from './models.js';

export { createNluModels, type NluModels } from './models.js';

/** Composition root of the training-data service: wires its store, service and routes. */
export function createNluService(store: Store): NluService {
  // The list cache is per process; the data version it checks is shared by every process on the store.
  return new NluService(NluStore.over(store.db, store.dialect), new SampleListCache());
}

/** Bulk imports carry whole training sets. */
const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;
/** A training of tens of thousands of samples takes minutes on a loaded machine; past this it has hung. */
const TRAIN_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Trainings on one worker thread, started with the first: they are CPU-bound and rare, and requests keep the
 * other cores. The thread posts its progress on a port of its own; this end hears it on the event loop.
 */
export function threadTrainer(): { trainer: Trainer; reporter: Reporter; close: () => Promise<void> } {
  let pool: WorkerPool<TrainTask, string> | undefined;
  const thread = () =>
    (pool ??= new WorkerPool<TrainTask, string>({
      filename: new URL('./engine/train-worker.js', import.meta.url),
      name: 'nlu-train',
      threads: 1,
      maxQueue: 64,
      timeoutMs: TRAIN_TIMEOUT_MS,
    }));
  // Reports take the same thread: they wait for trainings and never slow one down.
  const reporter: Reporter = (request, signal) => thread().run({ ...request, crossValidate: true }, { signal });
  const trainer: Trainer = async (request, onProgress, signal) => {
    const pool = thread();
    if (!onProgress) return pool.run(request, { signal });
    const channel = new MessageChannel();
    channel.port1.on('message', (p: TrainProgress) => onProgress(p));
    // The thread closes its end when the training ends; the messages it posted before arrive first.
    const drained = new Promise<void>((resolve) => channel.port1.once('close', resolve));
    try {
      const document = await pool.run({ ...request, progress: channel.port2 }, { signal, transferList: [channel.port2] });
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      return document;
    } finally {
      channel.port1.close();
    }
  };
  return { trainer, reporter, close: async () => pool?.close() };
}

export async function registerNlu(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  const config = loadNluConfig();
  const store = NluStore.over(deps.store.db, deps.store.dialect);
  // The list cache is per process; the data version it checks is shared by every process on the store.
  const service = new NluService(store, new SampleListCache());
  // Predictions of long texts run on worker threads (a thread starts with the first such prediction); short texts on the event loop.
  const predictor = createPredictor(config.predictThreads, config.predictInlineChars);
  deps.lifecycle.onClose('nlu-predict-pool', () => predictor.close());
  const models = createNluModels(store, deps, { recheckMs: config.modelRecheckMs, predictor, service, reports: config.reports });
  const log = app.log.child({ service: 'nlu' });
  if (deps.config.runWorkers) {
    const { trainer, reporter, close: closeTrainer } = threadTrainer();
    const train = async (job: Job<TrainJobPayload>, ctx: JobContext) => {
      const started = Date.now();
      const about = { job_id: job.id, app_code: job.payload.app, training: job.payload.code, attempt: job.attempts };
      log.info(about, 'nlu training started');
      const result = await models.training.runTraining(job.payload, trainer, job.attempts >= job.maxAttempts, ctx);
      log.info({ ...about, ms: Date.now() - started, ...(result as object) }, 'nlu training finished');
      return result;
    };
    const worker = deps.jobs.work<TrainJobPayload>(TRAIN_QUEUE, train, {
      concurrency: 1,
      onError: (error, job) => log.warn({ job_id: job?.id, err: error }, 'nlu training attempt failed'),
    });
    deps.lifecycle.onClose('nlu-train-worker', () => worker.stop());
    const reportWorker = deps.jobs.work<ReportJobPayload>(
      REPORT_QUEUE,
      async (job, ctx) => {
        const result = await models.training.runReport(job.payload, reporter, job.attempts >= job.maxAttempts, ctx);
        log.info({ job_id: job.id, app_code: job.payload.app, model: job.payload.code, ...(result as object) }, 'nlu report finished');
        return result;
      },
      { concurrency: 1, onError: (error, job) => log.warn({ job_id: job?.id, err: error }, 'nlu report attempt failed') },
    );
    deps.lifecycle.onClose('nlu-report-worker', () => reportWorker.stop());
    deps.lifecycle.onClose('nlu-train-pool', closeTrainer);
    // Reads of the inbox sweep their own application too; this catches applications nobody looks at.
    const sweep = setInterval(() => {
      models.inbox.sweepHistory().then(
        (deleted) => deleted > 0 && log.info({ deleted }, 'nlu history retention sweep'),
        (err: unknown) => log.error({ err }, 'nlu history retention sweep failed'),
      );
    }, config.historySweepSeconds * 1000);
    sweep.unref();
    deps.lifecycle.onClose('nlu-history-sweep', () => clearInterval(sweep));
  }
  // The masking switch, offered to the console.
  deps.appSettings?.register({
    key: 'nlu.mask_history',
    label: 'Mask saved NLU predictions',
    description: 'Numbers, phone numbers, e-mail addresses and ids are masked before a prediction is saved in the history (and the inbox).',
    get: async (appCode) => (await models.inbox.settings(appCode)).mask_history,
    set: async (appCode, on) => {
      await models.inbox.setSettings(appCode, { mask_history: on });
    },
  });
  deps.lifecycle.addReadiness('nlu', async () => ({ ok: true, training: await deps.jobs.counts(TRAIN_QUEUE), predicting: predictor.stats() }));
  await app.register(nluRoutes, { prefix: '/api/v3', service, models, credentials: deps.credentials, importBodyLimit: IMPORT_BODY_LIMIT });
}

/** Model documents are blobs under the application's folder; the rows go with the table sweep. */
export const purgeNluModels: PurgeHook = async (appCode, { blobs }) => ({
  blobs: await blobs.deleteOlderThan(modelFolder(appCode), new Date(8.64e15)),
});
