/**
 * The prediction worker thread: answers a batch of predictions with the
 * models it keeps (parsed once per thread, the least recently used dropped
 * past `KEPT_MODELS`). A batch names each item's model by key; the model
 * document comes with a batch only when this thread asked for it (an item
 * whose model the thread does not hold answers `missing`, and the caller
 * sends it again with the document).
 */
import { NluModel, type IntentScore, type PredictedEntity } from './model.js';
import { VIETNAM_OFFSET_MINUTES } from './system-entities.js';

export interface PredictItem {
  /** The model: application and model code. */
  key: string;
  content: string;
  /** The request's time (ms since the epoch): relative dates ("mai") are read from it. */
  now: number;
  intent: boolean;
  entity: boolean;
}

export interface PredictBatch {
  items: PredictItem[];
  /** Model documents (JSON text) by key, for items this thread answered `missing` before. */
  models: Record<string, string>;
}

export type PredictOutcome =
  | { ok: { intents?: IntentScore[]; entities?: PredictedEntity[] } }
  | { missing: true }
  | { error: string };

/** Models one thread keeps parsed; a batch never needs more than `MAX_NEW_MODELS` new ones (predictor.ts). */
export const KEPT_MODELS = 64;

const models = new Map<string, NluModel>();

function keep(key: string, model: NluModel): void {
  models.delete(key);
  models.set(key, model);
  while (models.size > KEPT_MODELS) models.delete(models.keys().next().value!);
}

export default function predictWorker(batch: PredictBatch): PredictOutcome[] {
  // A document that does not load fails its own items only, not the other models' in the batch.
  const unloadable = new Map<string, string>();
  for (const [key, doc] of Object.entries(batch.models)) {
    if (models.has(key)) continue;
    try {
      keep(key, new NluModel(JSON.parse(doc)));
    } catch (err) {
      unloadable.set(key, `The model could not be loaded: ${(err as Error)?.message ?? String(err)}`);
    }
  }
  return batch.items.map((item): PredictOutcome => {
    const failed = unloadable.get(item.key);
    if (failed) return { error: failed };
    const model = models.get(item.key);
    if (!model) return { missing: true };
    try {
      return { ok: model.predict(item.content, { now: new Date(item.now), offsetMinutes: VIETNAM_OFFSET_MINUTES }, { intent: item.intent, entity: item.entity }) };
    } catch (err) {
      return { error: (err as Error)?.message ?? String(err) };
    }
  });
}
