import type { BlobStore } from '../platform/blobs/store.js';
import type { Store } from '../platform/db/database.js';
import type { JobQueue } from '../platform/jobs/queue.js';
import { InboxService } from './inbox.js';
import { InboxStore } from './inbox-store.js';
import { SampleListCache } from './list-cache.js';
import { ReportService } from './model-report.js';
import { ModelStore } from './model-store.js';
import { ServedModels } from './model-cache.js';
import { HistoryService, PredictionService } from './prediction.js';
import type { Predictor } from './predictor.js';
import { NluService } from './service.js';
import type { NluStore } from './store.js';
import { TrainingService } from './training.js';

/** The model side of the service: training, the models predictions use, predictions and their history. */
export interface NluModels {
  training: TrainingService;
  served: ServedModels;
  prediction: PredictionService;
  history: HistoryService;
  inbox: InboxService;
  reports: ReportService;
}

/** Composition root of the model side, over the same `NluStore` as the training data. */
export function createNluModels(
  data: NluStore,
  parts: { store: Store; jobs: JobQueue; blobs: BlobStore },
  options: { recheckMs?: number; predictor?: Predictor; cachedModelChars?: number; service?: NluService; reports?: boolean } = {},
): NluModels {
  const modelStore = new ModelStore(parts.store.db);
  const served = new ServedModels(modelStore, parts.blobs, options.recheckMs, options.predictor, options.cachedModelChars);
  // Labels from the inbox are training-data writes: through the same service as the API's.
  const inbox = new InboxService(new InboxStore(parts.store.db), options.service ?? new NluService(data, new SampleListCache()));
  return {
    training: new TrainingService(data, modelStore, parts.jobs, parts.blobs, served, options.reports ?? true),
    served,
    prediction: new PredictionService(modelStore, served, inbox),
    history: new HistoryService(modelStore),
    inbox,
    reports: new ReportService(modelStore),
  };
}
