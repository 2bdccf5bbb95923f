import os from 'node:os';
import { PlatformError } from '../platform/http/errors.js';
import { WorkerPool } from '../platform/pool/index.js';
import { NluModel, type IntentScore, type NluModelData, type PredictedEntity } from './engine/model.js';
import type { PredictBatch, PredictItem, PredictOutcome } from './engine/predict-worker.js';
import { VIETNAM_OFFSET_MINUTES } from './engine/system-entities.js';

export interface Prediction {
  intents?: IntentScore[];
  entities?: PredictedEntity[];
}

export interface PredictParts {
  intent: boolean;
  entity: boolean;
}

/**
 * A model document as predictions use it: its text (what a prediction thread is sent; not kept when there are
 * no threads) and the model parsed on this thread, once, when a prediction here first needs it.
 */
export class ServedModel {
  constructor(
    /** Application and model code: one key per model document. */
    readonly key: string,
    private readonly text: string | undefined,
    private parsed?: NluModel,
  ) {}

  get doc(): string {
    if (this.text === undefined) throw new Error(`The text of model ${this.key} was not kept`);
    return this.text;
  }

  get model(): NluModel {
    return (this.parsed ??= new NluModel(JSON.parse(this.doc) as NluModelData));
  }
}

/** Where predictions run: on the event loop (`InlinePredictor`) or, past a length, on worker threads (`ThreadPredictor`). */
export interface Predictor {
  load(key: string, doc: string): ServedModel;
  predict(served: ServedModel, content: string, nowMs: number, parts: PredictParts): Prediction | Promise<Prediction>;
  /** For /readyz: threads running, predictions waiting for one, and batches and predictions sent so far. */
  stats(): PredictorStats;
  close(): Promise<void>;
}

export interface PredictorStats {
  threads: number;
  waiting: number;
  /** Batches sent to the threads, and the predictions they held. */
  batches: number;
  predictions: number;
  /** Predictions answered on the event loop. */
  inline: number;
}

/** Predictions on the calling thread: no hop, each one holds the event loop for the engine's time. */
export class InlinePredictor implements Predictor {
  private predictions = 0;

  load(key: string, doc: string): ServedModel {
    return new ServedModel(key, undefined, new NluModel(JSON.parse(doc) as NluModelData));
  }

  predict(served: ServedModel, content: string, nowMs: number, parts: PredictParts): Prediction {
    this.predictions++;
    return predictHere(served, content, nowMs, parts);
  }

  stats(): PredictorStats {
    return { threads: 0, waiting: 0, batches: 0, predictions: 0, inline: this.predictions };
  }

  async close(): Promise<void> {}
}

function predictHere(served: ServedModel, content: string, nowMs: number, parts: PredictParts): Prediction {
  return served.model.predict(content, { now: new Date(nowMs), offsetMinutes: VIETNAM_OFFSET_MINUTES }, parts);
}

/** Predictions in one batch at most (a batch is one message each way). */
const MAX_BATCH = 256;
/** Model documents sent in one batch at most: well under what a thread keeps (`KEPT_MODELS`); a model sent with a batch answers its items even when the thread does not keep it. */
const MAX_NEW_MODELS = 16;

interface Waiting {
  item: PredictItem;
  doc: string;
  /** The thread answered `missing`: the next batch carries the document. */
  sendDoc: boolean;
  resolve: (prediction: Prediction) => void;
  reject: (err: unknown) => void;
}

export interface ThreadPredictorOptions {
  threads: number;
  /**
   * Texts up to this many UTF-16 units are predicted on the event loop (0: none): a chat utterance costs the
   * engine tens of µs, less than the hop to a thread and back.
   */
  inlineChars: number;
  /**
   * A model whose document is longer than this (characters) is never parsed on the event loop: all its
   * predictions go to the threads (parsing a document of 86 M characters, the size the weight cap allows, held
   * the event loop 0.2-0.3 s after each training). `DEFAULT_INLINE_MODEL_CHARS` when not given.
   */
  inlineModelChars?: number;
  /** Predictions allowed to wait for a thread; past that callers get "busy" (429). */
  maxWaiting: number;
  /** Longest one batch may run. */
  timeoutMs: number;
  /** A thread idle this long is ended, with the models it parsed. */
  idleTimeoutMs: number;
}

/**
 * Predictions of texts longer than `inlineChars` on worker threads, off the event loop (shorter ones here: the
 * hop costs more than they do): the predictions asked for during one turn of the event
 * loop go to a thread as one batch (one message each way, however many), at most two batches per thread at a
 * time, so that while a thread works the next batch gathers. Each thread parses a model document once and
 * keeps it; a thread that does not hold an item's model answers `missing` and the item goes again with the
 * document (once per thread and model: after a new training, or a thread started anew).
 */
export class ThreadPredictor implements Predictor {
  private readonly pool: WorkerPool<PredictBatch, PredictOutcome[]>;
  private readonly queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private batches = 0;
  private predictions = 0;
  private inline = 0;

  constructor(private readonly options: ThreadPredictorOptions) {
    this.pool = new WorkerPool<PredictBatch, PredictOutcome[]>({
      filename: new URL('./engine/predict-worker.js', import.meta.url),
      name: 'nlu-predict',
      threads: options.threads,
      maxQueue: options.threads * 2,
      timeoutMs: options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
    });
  }

  load(key: string, doc: string): ServedModel {
    return new ServedModel(key, doc);
  }

  predict(served: ServedModel, content: string, nowMs: number, parts: PredictParts): Prediction | Promise<Prediction> {
    if (content.length <= this.options.inlineChars && served.doc.length <= (this.options.inlineModelChars ?? DEFAULT_INLINE_MODEL_CHARS)) {
      this.inline++;
      return predictHere(served, content, nowMs, parts);
    }
    if (this.queue.length >= this.options.maxWaiting) {
      throw new PlatformError('busy', 'The NLU prediction threads are busy; try again shortly');
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ item: { key: served.key, content, now: nowMs, intent: parts.intent, entity: parts.entity }, doc: served.doc, sendDoc: false, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    while (this.queue.length > 0 && this.inFlight < this.options.threads * 2) this.send(this.take());
  };

  /** The next batch from the front of the queue: up to `MAX_BATCH` predictions and `MAX_NEW_MODELS` documents. */
  private take(): Waiting[] {
    const docs = new Set<string>();
    let n = 0;
    for (; n < this.queue.length && n < MAX_BATCH; n++) {
      const w = this.queue[n]!;
      if (!w.sendDoc || docs.has(w.item.key)) continue;
      if (docs.size >= MAX_NEW_MODELS) break;
      docs.add(w.item.key);
    }
    return this.queue.splice(0, n);
  }

  private send(batch: Waiting[]): void {
    const models: Record<string, string> = {};
    for (const w of batch) if (w.sendDoc) models[w.item.key] = w.doc;
    this.inFlight++;
    this.batches++;
    this.predictions += batch.length;
    this.pool
      .run({ items: batch.map((w) => w.item), models })
      .then(
        (outcomes) => {
          const again: Waiting[] = [];
          outcomes.forEach((outcome, i) => {
            const w = batch[i]!;
            if ('ok' in outcome) w.resolve(outcome.ok);
            else if ('error' in outcome) w.reject(new Error(outcome.error));
            else if (w.sendDoc) w.reject(new Error('The prediction thread did not keep the model it was sent'));
            else {
              w.sendDoc = true;
              again.push(w);
            }
          });
          this.queue.unshift(...again);
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.flush();
      });
  }

  stats(): PredictorStats {
    return { threads: this.pool.stats().threads, waiting: this.queue.length, batches: this.batches, predictions: this.predictions, inline: this.inline };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * Prediction threads by default: one fewer than the cores (the event loop keeps one), at most 4; none on a
 * single core, where a hop to another thread buys nothing.
 */
export function defaultPredictThreads(cores = os.availableParallelism()): number {
  return Math.max(0, Math.min(4, cores - 1));
}

/** Texts predicted on the event loop by default (SAOLA_NLU_PREDICT_INLINE_CHARS): a chat utterance or an SMS. */
export const DEFAULT_INLINE_CHARS = 160;

/** Model documents past this many characters are predicted on the threads only (`ThreadPredictorOptions.inlineModelChars`). */
export const DEFAULT_INLINE_MODEL_CHARS = 8 * 1024 * 1024;

export function createPredictor(threads: number, inlineChars = DEFAULT_INLINE_CHARS): Predictor {
  if (threads <= 0) return new InlinePredictor();
  return new ThreadPredictor({ threads, inlineChars, maxWaiting: 10_000, timeoutMs: 30_000, idleTimeoutMs: 10 * 60_000 });
}
