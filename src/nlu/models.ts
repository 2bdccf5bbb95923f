import type { BlobStore } from '../platform/blobs/store.js';
import type { Store } from '../platform/db/database.js';
import type { JobQueue } from '../platform/jobs/queue.js';
import { ModelStore } from './model-store.js';
import { ServedModels } from './model-cache.js';
import { HistoryService, PredictionService } from './prediction.js';
import type { Predictor } from './predictor.js';
import type { NluStore } from './store.js';
import { TrainingService } from './training.js';

/** The model side of the service: training, the models predictions use, predictions and their history. */
export interface NluModels {
  training: TrainingService;
  served: ServedModels;
  prediction: PredictionService;
  history: HistoryService;
}

/** Composition root of the model side, over the same `NluStore` as the training data. */
export function createNluModels(
  data: NluStore,
  parts: { store: Store; jobs: JobQueue; blobs: BlobStore },
  options: { recheckMs?: number; predictor?: Predictor; cachedModelChars?: number } = {},
): NluModels {
  const modelStore = new ModelStore(parts.store.db);
  const served = new ServedModels(modelStore, parts.blobs, options.recheckMs, options.predictor, options.cachedModelChars);
  return {
    training: new TrainingService(data, modelStore, parts.jobs, parts.blobs, served),
    served,
    prediction: new PredictionService(modelStore, served),
    history: new HistoryService(modelStore),
  };
}
