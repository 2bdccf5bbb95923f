import { LRUCache } from 'lru-cache';
import type { BlobStore } from '../platform/blobs/store.js';
import { DEFAULT_RECHECK_MS } from './config.js';
import type { NluModelData } from './engine/model.js';
import { InlinePredictor, type Predictor, type ServedModel } from './predictor.js';
import type { ModelStore } from './model-store.js';

const CACHED_MODELS = 64;
/** The confidence below which an intent is not answered, for an application that set none. */
export const DEFAULT_THRESHOLD = 0.3;

interface CachedModel {
  code: string;
  model: ServedModel;
  /** The document's length, what the cache counts. */
  chars: number;
}

/** Characters of model documents the process keeps parsed at most (see `ServedModels.cache`). */
export const CACHED_MODEL_CHARS = 512 * 1024 * 1024;
/** Applications whose serving model and threshold are remembered (each entry is small: the model is shared with `cache`). */
const SERVED_APPS = 10_000;

/**
 * The models predictions use: each application's newest successful model (whichever process trained it), read
 * from the blob store and made ready once per process and version, and with it the application's threshold.
 */
export class ServedModels {
  /**
   * Each application's newest model, parsed: at most `CACHED_MODELS`, and documents of at most
   * `CACHED_MODEL_CHARS` in all (a few large models fill it before 64 small ones would). A model dropped here
   * leaves `serving` too, which would otherwise keep it in memory.
   */
  private readonly cache: LRUCache<string, CachedModel>;
  private readonly loading = new Map<string, Promise<ServedModel>>();
  /**
   * What predictions of an application use (its newest model and its threshold) and when the store was last
   * asked: within `recheckMs` a prediction reads neither table. Changes made in this process are seen at once;
   * a model trained or a threshold set by another process within `recheckMs`.
   */
  private readonly serving = new Map<string, { model: ServedModel | undefined; code: string; threshold: number; checkedAt: number }>();
  private readonly checking = new Map<string, Promise<{ model: ServedModel | undefined; threshold: number }>>();
  /** Bumped by a change made here, so a check that read the store before it is not kept. */
  private generation = 0;

  constructor(
    private readonly models: ModelStore,
    private readonly blobs: BlobStore,
    /** How long a prediction may use the model and threshold it last read (ms; 0: read them for every prediction). */
    private readonly recheckMs = DEFAULT_RECHECK_MS,
    /** Where predictions run (the event loop by default; worker threads in a server: `createPredictor`). */
    readonly predictor: Predictor = new InlinePredictor(),
    /** Characters of model documents kept parsed at most (see `cache`). */
    cachedModelChars = CACHED_MODEL_CHARS,
  ) {
    this.cache = new LRUCache<string, CachedModel>({
      max: CACHED_MODELS,
      maxSize: cachedModelChars,
      sizeCalculation: (entry) => Math.max(1, entry.chars),
      dispose: (entry, app, reason) => {
        if (reason === 'evict' && this.serving.get(app)?.model === entry.model) this.serving.delete(app);
      },
    });
  }

  /** The newest successful model's document, read from the blob store. */
  async currentModelData(app: string): Promise<NluModelData | undefined> {
    const current = await this.models.currentModel(app);
    return current ? (JSON.parse(await this.readModel(current.model_file)) as NluModelData) : undefined;
  }

  private async readModel(file: string): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.blobs.read(file)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** The newest successful model, made ready for predictions once per process and version (another process may have trained it). */
  private async newestModel(app: string): Promise<{ code: string; model: ServedModel } | undefined> {
    const current = await this.models.currentModel(app);
    if (!current) return undefined;
    const cached = this.cache.get(app);
    if (cached?.code === current.code) return cached;
    const key = `${app}\u0000${current.code}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        const document = await this.readModel(current.model_file);
        const model = this.predictor.load(key, document);
        this.cache.set(app, { code: current.code, model, chars: document.length });
        return model;
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return { code: current.code, model: await pending };
  }

  /** The code of the model predictions of `app` use here, if any is kept. */
  servedCode(app: string): string | undefined {
    return this.serving.get(app)?.code;
  }

  /** Forgets what predictions of `app` use, so the next one reads the store (a change made in this process). */
  forget(app: string): void {
    this.generation++;
    this.serving.delete(app);
    // A check that started before the change may have read the old state: later predictions start their own.
    this.checking.delete(app);
  }

  /**
   * The model and threshold a prediction uses: kept for `recheckMs` after they were read, so a prediction
   * usually awaits nothing; then read again (the newest model's code and the threshold: two indexed
   * queries, shared by the predictions that arrive meanwhile; the model document only when its code changed).
   */
  serve(app: string): { model: ServedModel | undefined; threshold: number } | Promise<{ model: ServedModel | undefined; threshold: number }> {
    const hit = this.serving.get(app);
    const at = Date.now();
    if (hit && at - hit.checkedAt < this.recheckMs) return hit;
    let pending = this.checking.get(app);
    if (!pending) {
      const generation = this.generation;
      pending = Promise.all([this.newestModel(app), this.threshold(app)])
        .then(([newest, threshold]) => {
          const model = newest?.model;
          if (generation === this.generation && this.recheckMs > 0) {
            this.serving.delete(app);
            this.serving.set(app, { model, code: newest?.code ?? '', threshold, checkedAt: at });
            while (this.serving.size > SERVED_APPS) this.serving.delete(this.serving.keys().next().value!);
          }
          return { model, threshold };
        })
        .finally(() => {
          if (this.checking.get(app) === pending) this.checking.delete(app);
        });
      this.checking.set(app, pending);
    }
    return pending;
  }

  /** The application's threshold, as stored. */
  async threshold(app: string): Promise<number> {
    return (await this.models.threshold(app)) ?? DEFAULT_THRESHOLD;
  }
}
