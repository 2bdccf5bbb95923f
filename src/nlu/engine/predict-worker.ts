/**
 * The prediction worker thread: answers a batch of predictions with the
 * models it keeps (parsed once per thread, the least recently used dropped
 * past `KEPT_MODELS` or `KEPT_MODEL_CHARS` of documents). A batch names each item's model by key; the model
 * document comes with a batch only when this thread asked for it (an item
 * whose model the thread does not hold answers `missing`, and the caller
 * sends it again with the document).
 */
import { LRUCache } from 'lru-cache';
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

export type PredictOutcome = { ok: { intents?: IntentScore[]; entities?: PredictedEntity[] } } | { missing: true } | { error: string };

/** Models one thread keeps parsed; a batch never needs more than `MAX_NEW_MODELS` new ones (predictor.ts). */
export const KEPT_MODELS = 64;
/** Characters of the documents of the models one thread keeps, at most: a few large models fill it before 64 small ones. */
export const KEPT_MODEL_CHARS = 512 * 1024 * 1024;

const models = new LRUCache<string, { model: NluModel; chars: number }>({
  max: KEPT_MODELS,
  maxSize: KEPT_MODEL_CHARS,
  sizeCalculation: (entry) => Math.max(1, entry.chars),
});

export default function predictWorker(batch: PredictBatch): PredictOutcome[] {
  // A document that does not load fails its own items only, not the other models' in the batch.
  const unloadable = new Map<string, string>();
  // The models sent with this batch answer its items even when the thread's cache would not keep them.
  const sent = new Map<string, NluModel>();
  for (const [key, doc] of Object.entries(batch.models)) {
    if (models.has(key)) continue;
    try {
      const model = new NluModel(JSON.parse(doc));
      sent.set(key, model);
      models.set(key, { model, chars: doc.length });
    } catch (err) {
      unloadable.set(key, `The model could not be loaded: ${(err as Error)?.message ?? String(err)}`);
    }
  }
  return batch.items.map((item): PredictOutcome => {
    const failed = unloadable.get(item.key);
    if (failed) return { error: failed };
    const model = sent.get(item.key) ?? models.get(item.key)?.model;
    if (!model) return { missing: true };
    try {
      return { ok: model.predict(item.content, { now: new Date(item.now), offsetMinutes: VIETNAM_OFFSET_MINUTES }, { intent: item.intent, entity: item.entity }) };
    } catch (err) {
      return { error: (err as Error)?.message ?? String(err) };
    }
  });
}
