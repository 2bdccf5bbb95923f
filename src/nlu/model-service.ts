import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { uuidv7 } from '../platform/ids.js';
import type { BlobStore } from '../platform/blobs/store.js';
import { ServiceError } from '../platform/http/errors.js';
import { PermanentJobError, type JobContext, type JobQueue } from '../platform/jobs/queue.js';
import { NluErrors } from './errors.js';
import type { EntityDefinition, EntityKind, ModelMetrics, NluModelData, PredictedEntity, TrainProgress, TrainRequest, TrainingExample } from './engine/model.js';
import { InlinePredictor, type Predictor, type ServedModel } from './predictor.js';
import { TrainState, TrainType, type HistoryRow, type ModelRow, type ModelStore } from './model-store.js';
import type { NluStore } from './store.js';

export const TRAIN_QUEUE = 'nlu-train';
export const DEFAULT_THRESHOLD = 0.3;
const MAX_PREDICT_CHARS = 2_000;
const CACHED_MODELS = 64;

interface CachedModel {
  code: string;
  model: ServedModel;
  /** The document's length, what the cache counts. */
  chars: number;
}

/** Successful models whose documents an application keeps (the newest; older ones are deleted after a training). */
export const KEPT_MODEL_VERSIONS = 5;

/** Characters of model documents the process keeps parsed at most (see `NluModelService.cache`). */
export const CACHED_MODEL_CHARS = 512 * 1024 * 1024;
/** Applications whose serving model and threshold are remembered (each entry is small: the model is shared with `cache`). */
const SERVED_APPS = 10_000;
/** How long predictions use the model and threshold last read before reading them again (SAOLA_NLU_MODEL_RECHECK_MS). */
export const DEFAULT_RECHECK_MS = 1000;

export interface TrainJobPayload {
  app: string;
  code: string;
}

/**
 * Runs one training off the event loop (the worker pool); answers the model document as JSON. `onProgress` is
 * told how far it is as it goes; `signal` aborts it (the job's claim was lost to another worker).
 */
export type Trainer = (request: TrainRequest, onProgress?: (p: TrainProgress) => void, signal?: AbortSignal) => Promise<string>;

/** How often a running training writes its progress to the store at most (each write is one indexed update). */
const PROGRESS_EVERY_MS = 1_000;

export type TrainPart = 'all' | 'intent' | 'entity';

export interface TrainJob {
  code: string;
  app_code: string;
  type: number;
  state: number;
  message: string;
  model_file: string;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  created_time: string;
  started_time: string;
  finished_time: string;
  /** Saola extension: 0-100, how far the training is. */
  progress: number;
  metrics: ModelMetrics;
}

export interface TrainStatus {
  last_success_time: string;
  status: number;
  trainable: boolean;
  /** Saola extension: 0-100, how far the latest training request is. */
  progress: number;
  model_code: string;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  metrics: ModelMetrics;
}

export interface PredictAnswer {
  status: { code: number; message: string; module: string; api_code: number; err_code: number };
  data: {
    intents?: { label: string; confidence: number }[];
    entities?: PredictedEntity[];
    history_id: number;
  };
}

export interface HistoryItem {
  history_id: number;
  content: string;
  intents: unknown;
  entities: unknown;
  created_time: string;
}

interface TrainingSummary {
  intentCount: number;
  taggedOrListed: number;
  /** A sha256 over the training data as the engine reads it: a model trained on the same data has the same. */
  fingerprint: string;
}

interface TrainingSet extends TrainingSummary {
  examples: TrainingExample[];
  entities: EntityDefinition[];
}

/** Applications whose training summary `NluModelService` keeps (each a few numbers), the least recently read dropped past it. */
const MAX_SUMMARIES = 10_000;

const TYPE_OF: Record<TrainPart, number> = { all: TrainType.all, intent: TrainType.intent, entity: TrainType.entity };
const PREDICT_MESSAGE: Record<TrainPart, string> = {
  all: 'Predict All successful',
  intent: 'Predict Intents successful',
  entity: 'Recognize Entities successful',
};

function now(): string {
  return new Date().toISOString();
}

/** Blob folder of an application's models: a digest, so no two app codes share one and any code is a safe key. */
export function modelFolder(app: string): string {
  return `nlu/${createHash('sha256').update(app).digest('hex').slice(0, 32)}/`;
}

function parseMetrics(text: string): ModelMetrics {
  try {
    return JSON.parse(text) as ModelMetrics;
  } catch {
    return {};
  }
}

/** The four numbers of the original's job object: the intent classifier's, or the entity extractor's when only it was trained. */
function headline(metrics: ModelMetrics): { accuracy: number; precision: number; recall: number; f1: number } {
  const round = (n: number) => Math.round(n * 1e4) / 1e4;
  if (metrics.intent)
    return { accuracy: round(metrics.intent.accuracy), precision: round(metrics.intent.precision), recall: round(metrics.intent.recall), f1: round(metrics.intent.f1) };
  if (metrics.entity)
    return { accuracy: round(metrics.entity.f1), precision: round(metrics.entity.precision), recall: round(metrics.entity.recall), f1: round(metrics.entity.f1) };
  return { accuracy: 0, precision: 0, recall: 0, f1: 0 };
}

/** Longer than the queue's attempts take (the pool's limit is 30 min a run): a worker killed on its last attempt left this row. */
const ABANDONED_AFTER_MS = 65 * 60 * 1000;

function abandoned(row: ModelRow): boolean {
  return row.state === TrainState.training && row.started_time !== null && Date.now() - Date.parse(row.started_time) > ABANDONED_AFTER_MS;
}

/** The job's note when the intent model left features out to bound its size (`MAX_INTENT_WEIGHTS`). */
function leftOut(trained: NluModelData): string {
  const n = trained.intent?.featuresLeftOut;
  if (!n) return '';
  const kept = trained.intent!.vocabulary.length;
  return ` (the model keeps the ${kept.toLocaleString('en-US')} commonest of ${(kept + n).toLocaleString('en-US')} features, to bound its size)`;
}

function toJob(row: ModelRow): TrainJob {
  const metrics = parseMetrics(row.metrics);
  return {
    code: row.code,
    app_code: row.app_code,
    type: row.type,
    state: row.state,
    message: row.message,
    model_file: row.model_file,
    ...headline(metrics),
    created_time: row.created_time,
    started_time: row.started_time ?? '',
    finished_time: row.finished_time ?? '',
    progress: row.progress ?? 0,
    metrics,
  };
}

/**
 * Training and prediction for one application at a time: training requests
 * go to the job queue (one waiting or running per application), each success
 * is a versioned model document in the blob store, and predictions use the
 * newest successful one, whichever process trained it.
 */
export class NluModelService {
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
  /** Each application's `trainingSummary` and the data version it was read at. */
  private readonly summaries = new Map<string, { version: number; summary: TrainingSummary }>();
  /** Bumped by a change made here, so a check that read the store before it is not kept. */
  private generation = 0;

  constructor(
    private readonly data: NluStore,
    private readonly models: ModelStore,
    private readonly jobs: JobQueue,
    private readonly blobs: BlobStore,
    /** How long a prediction may use the model and threshold it last read (ms; 0: read them for every prediction). */
    private readonly recheckMs = DEFAULT_RECHECK_MS,
    /** Where predictions run (the event loop by default; worker threads in a server: `createPredictor`). */
    private readonly predictor: Predictor = new InlinePredictor(),
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

  // Training

  async train(app: string, part: TrainPart): Promise<{ message: string; status: TrainJob[] }> {
    const running = await this.models.running(app);
    if (running && !abandoned(running)) return { message: 'A training is already in progress', status: [toJob(running)] };
    if (running) await this.models.markFailed(app, running.code, 'The training was abandoned: its worker stopped while it ran', now());
    this.checkEnough(await this.trainingSummary(app), part);
    const row: ModelRow = {
      code: uuidv7(),
      app_code: app,
      type: TYPE_OF[part],
      state: TrainState.waiting,
      message: 'Waiting to train',
      model_file: '',
      metrics: '{}',
      data_fingerprint: '',
      running_app: app,
      created_time: now(),
      started_time: null,
      finished_time: null,
      progress: 0,
    };
    const { row: current, created } = await this.models.insertOrRunning(row);
    if (!created) return { message: 'A training is already in progress', status: [toJob(current)] };
    try {
      await this.jobs.enqueue(TRAIN_QUEUE, { app, code: row.code } satisfies TrainJobPayload, { appCode: app, key: row.code, maxAttempts: 2 });
    } catch (err) {
      await this.models.markFailed(app, row.code, 'Could not queue the training', now());
      throw err;
    }
    return { message: 'Training queued', status: [toJob(current)] };
  }

  private checkEnough(set: TrainingSummary, part: TrainPart): void {
    if (part !== 'entity' && set.intentCount < 2) {
      throw new ServiceError(NluErrors.notEnoughData, `Training needs samples for at least 2 intents; this application has samples for ${set.intentCount}`);
    }
    if (part === 'entity' && set.taggedOrListed === 0) {
      throw new ServiceError(NluErrors.notEnoughData, 'Training entities needs at least one tagged sample or listed keyword');
    }
  }

  async status(app: string): Promise<TrainStatus> {
    const [latest, success, set] = await Promise.all([this.models.latest(app), this.models.lastSuccess(app), this.trainingSummary(app)]);
    const metrics = success ? parseMetrics(success.metrics) : {};
    // A newer model than the one predictions here use (trained by another process): use it from now on.
    const served = this.serving.get(app);
    if (served && served.code !== (success?.code ?? '')) this.forgetServing(app);
    return {
      last_success_time: success?.finished_time ?? '',
      status: latest?.state ?? TrainState.waiting,
      trainable: set.intentCount >= 2 && set.fingerprint !== (success?.data_fingerprint ?? ''),
      progress: latest?.progress ?? 0,
      model_code: success?.code ?? '',
      ...headline(metrics),
      metrics,
    };
  }

  /**
   * The queue's handler: trains the request `code`. Idempotent: a request
   * already finished is left as it is. On the last attempt a failure is
   * recorded and the previous model stays in use.
   */
  async runTraining(payload: TrainJobPayload, trainer: Trainer, lastAttempt: boolean, ctx?: JobContext): Promise<unknown> {
    const { app, code } = payload;
    const row = await this.models.find(app, code);
    if (!row || row.state === TrainState.success || row.state === TrainState.failed) return { skipped: true };
    await this.models.markTraining(app, code, now());
    try {
      const set = await this.trainingSet(app);
      const part = (Object.keys(TYPE_OF) as TrainPart[]).find((p) => TYPE_OF[p] === row.type) ?? 'all';
      try {
        this.checkEnough(set, part);
      } catch (err) {
        throw new PermanentJobError((err as Error).message);
      }
      const parts = { intent: part !== 'entity', entity: part !== 'intent' && set.entities.length > 0 };
      const progress = this.progressWriter(app, code, set.examples.length, ctx);
      let document: string;
      try {
        document = await trainer({ examples: set.examples, entities: set.entities, parts }, progress.report, ctx?.signal);
      } finally {
        await progress.stop();
      }
      const trained = JSON.parse(document) as NluModelData;
      // A half not trained this time is the previous model's.
      if (part !== 'all') {
        const previous = await this.currentModelData(app).catch(() => undefined);
        if (part === 'intent') trained.entity = previous?.entity;
        if (part === 'entity') trained.intent = previous?.intent;
        trained.metrics = { ...previous?.metrics, ...trained.metrics };
      }
      const key = `${modelFolder(app)}${code}.json`;
      await this.blobs.put(key, Buffer.from(JSON.stringify(trained)), { contentType: 'application/json' });
      await this.models.markSuccess(app, code, {
        model_file: key,
        metrics: JSON.stringify(trained.metrics),
        data_fingerprint: set.fingerprint,
        message: `Trained on ${set.examples.length} samples${leftOut(trained)}`,
        at: now(),
      });
      this.forgetServing(app);
      const pruned = await this.deleteOldModels(app);
      return { model_file: key, samples: set.examples.length, ...pruned };
    } catch (err) {
      if (lastAttempt || err instanceof PermanentJobError) {
        await this.models.markFailed(app, code, `Training failed: ${(err as Error).message ?? String(err)}`, now());
      }
      throw err;
    }
  }

  /**
   * Deletes the documents of the application's successful models past the newest `KEPT_MODEL_VERSIONS` (each
   * training writes one; a bot retrained daily would otherwise grow its folder for ever); their rows stay, with an
   * empty `model_file`. Predictions only ever read the newest. A failure here leaves the files for the next
   * training to delete and does not fail this one; the count and any error go to the training's log line.
   */
  private async deleteOldModels(app: string): Promise<{ old_models_deleted: number; old_models_error?: string }> {
    let deleted = 0;
    try {
      for (const old of await this.models.olderModels(app, KEPT_MODEL_VERSIONS)) {
        await this.blobs.delete(old.model_file);
        await this.models.clearModelFile(app, old.code);
        deleted++;
      }
      return { old_models_deleted: deleted };
    } catch (err) {
      return { old_models_deleted: deleted, old_models_error: (err as Error)?.message ?? String(err) };
    }
  }

  /**
   * Writes a running training's progress to its row (the job object's and train/status's `progress`, and
   * its message) and to the job queue, at most every `PROGRESS_EVERY_MS` and only when the percent moved;
   * one write at a time, the newest kept. `stop` waits for the last.
   */
  private progressWriter(app: string, code: string, samples: number, ctx: JobContext | undefined) {
    let written = 0;
    let writtenAt = 0;
    let writing: Promise<void> | undefined;
    let pending: { pct: number; message: string } | undefined;
    const write = (next: { pct: number; message: string }): Promise<void> =>
      Promise.all([this.models.markProgress(app, code, next.pct, next.message), ctx?.progress(next.pct)])
        .then(() => undefined)
        .catch(() => undefined) // Progress is advisory: a failed write must not fail the training.
        .finally(() => {
          writing = undefined;
          if (pending) {
            const again = pending;
            pending = undefined;
            writing = write(again);
          }
        });
    return {
      report: (p: TrainProgress) => {
        const pct = Math.min(99, Math.floor(p.fraction * 100));
        const at = Date.now();
        if (pct <= written || at - writtenAt < PROGRESS_EVERY_MS) return;
        written = pct;
        writtenAt = at;
        const next = {
          pct,
          message: `Training on ${samples} samples: ${pct}% (${p.stage === 'measuring' ? 'measuring on a held-out split' : 'final model'}, ${p.part}, pass ${p.pass} of ${p.passes})`,
        };
        if (writing) pending = next;
        else writing = write(next);
      },
      stop: async () => {
        pending = undefined;
        await writing;
      },
    };
  }

  /**
   * What train/status and train need of the training data (the number of intents, of tags and listed values,
   * the fingerprint) without reading it all each time: kept per application with the data version it was read
   * at, and read again only when some process wrote since (every write bumps the version in its transaction,
   * as `SampleListCache` relies on). Reading 100,000 samples to hash them took 0.45 s of the event loop per
   * status call, and clients poll the status while a model trains.
   */
  private async trainingSummary(app: string): Promise<TrainingSummary> {
    const version = await this.data.dataVersion(app);
    const known = this.summaries.get(app);
    if (known?.version === version) {
      // Most recently read last: the first in the map is the one dropped when it is full.
      this.summaries.delete(app);
      this.summaries.set(app, known);
      return known.summary;
    }
    // Read after the version: the data holds every write up to it.
    const { intentCount, taggedOrListed, fingerprint } = await this.trainingSet(app);
    const summary = { intentCount, taggedOrListed, fingerprint };
    const current = this.summaries.get(app);
    if (current === undefined || current.version < version) {
      this.summaries.delete(app);
      if (this.summaries.size >= MAX_SUMMARIES) this.summaries.delete(this.summaries.keys().next().value!);
      this.summaries.set(app, { version, summary });
    }
    return summary;
  }

  /** The application's training data in the engine's terms, and its fingerprint. */
  private async trainingSet(app: string): Promise<TrainingSet> {
    const all = await this.data.everything(app);
    const keywords = await this.data.keywordsOfApp(app);
    const intentLabel = new Map(all.intents.map((i) => [i.code, i.label]));
    const entityLabel = new Map(all.entities.map((e) => [e.code, e.label]));
    const intentOf = new Map(all.intentLinks.map((l) => [l.sample_code, intentLabel.get(l.intent_code) ?? '']));
    const tagsOf = new Map<string, TrainingExample['entities']>();
    for (const l of all.entityLinks) {
      const label = entityLabel.get(l.entity_code);
      if (!label) continue;
      const list = tagsOf.get(l.sample_code) ?? [];
      list.push({ entity: label, start: l.start, end: l.end });
      tagsOf.set(l.sample_code, list);
    }
    const examples: TrainingExample[] = [];
    for (const s of all.samples) {
      const intent = intentOf.get(s.code) ?? '';
      const entities = (tagsOf.get(s.code) ?? []).sort((a, b) => a.start - b.start || a.end - b.end || a.entity.localeCompare(b.entity));
      if (intent || entities.length > 0) examples.push({ text: s.content, intent, entities });
    }
    const listed = new Map<string, { value: string; synonyms: string[] }[]>();
    for (const k of keywords) {
      const list = listed.get(k.entity_code) ?? [];
      list.push({ value: k.value, synonyms: JSON.parse(k.synonyms) as string[] });
      listed.set(k.entity_code, list);
    }
    const entities: EntityDefinition[] = all.entities.map((e) => ({ label: e.label, type: e.type as EntityKind, keywords: listed.get(e.code) ?? [] }));
    examples.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : a.intent < b.intent ? -1 : a.intent > b.intent ? 1 : 0));
    const fingerprint = createHash('sha256')
      .update(JSON.stringify({ examples, entities: [...entities].sort((a, b) => a.label.localeCompare(b.label)) }))
      .digest('hex');
    return {
      examples,
      entities,
      intentCount: new Set(examples.map((e) => e.intent).filter(Boolean)).size,
      taggedOrListed: all.entityLinks.length + keywords.length,
      fingerprint,
    };
  }

  // Prediction

  /** The newest successful model's document, read from the blob store. */
  private async currentModelData(app: string): Promise<NluModelData | undefined> {
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

  /** Forgets what predictions of `app` use, so the next one reads the store (a change made in this process). */
  private forgetServing(app: string): void {
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
  private serveModel(app: string): { model: ServedModel | undefined; threshold: number } | Promise<{ model: ServedModel | undefined; threshold: number }> {
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

  async predict(app: string, input: { content: string; save_history?: boolean }, part: TrainPart): Promise<PredictAnswer> {
    const content = input.content;
    if (!content.trim()) throw new ServiceError(NluErrors.emptyContent, 'content must not be empty');
    if (content.length > MAX_PREDICT_CHARS && Array.from(content).length > MAX_PREDICT_CHARS) {
      throw new ServiceError(NluErrors.invalidRequest, `content is limited to ${MAX_PREDICT_CHARS} characters`);
    }
    const served = this.serveModel(app);
    const { model, threshold } = served instanceof Promise ? await served : served;
    if (!model) throw new ServiceError(NluErrors.noModel);
    const data: PredictAnswer['data'] = { history_id: 0 };
    const predicted = this.predictor.predict(model, content, Date.now(), { intent: part !== 'entity', entity: part !== 'intent' });
    const found = predicted instanceof Promise ? await predicted : predicted;
    if (found.intents) data.intents = found.intents.filter((i) => i.confidence >= threshold);
    if (found.entities) data.entities = found.entities;
    if (input.save_history) {
      data.history_id = await this.saveHistory(app, content, data);
    }
    return { status: { code: 200, message: PREDICT_MESSAGE[part], module: '', api_code: 0, err_code: 0 }, data };
  }

  private async saveHistory(app: string, content: string, data: PredictAnswer['data']): Promise<number> {
    const answer = JSON.stringify({ intents: data.intents ?? [], entities: data.entities ?? [] });
    for (let attempt = 0; ; attempt++) {
      // Integer ids (clients read history_id as int64): milliseconds x 1000 + a random part, below 2^53.
      const id = Date.now() * 1000 + Math.floor(Math.random() * 1000);
      try {
        await this.models.insertHistory({ id, app_code: app, content, answer, created_time: now() });
        return id;
      } catch (err) {
        if (attempt >= 5) throw err;
      }
    }
  }

  // Settings

  async threshold(app: string): Promise<number> {
    return (await this.models.threshold(app)) ?? DEFAULT_THRESHOLD;
  }

  async setThreshold(app: string, threshold: number): Promise<{ threshold: number }> {
    if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
      throw new ServiceError(NluErrors.invalidThreshold, `threshold must be a number from 0 to 1, got ${threshold}`);
    }
    await this.models.setThreshold(app, threshold, now());
    this.forgetServing(app);
    return { threshold };
  }

  // History

  async listHistory(app: string, page: { limit?: number; offset?: number }): Promise<{ total: number; items: HistoryItem[] }> {
    const [total, rows] = await Promise.all([this.models.countHistory(app), this.models.listHistory(app, { limit: page.limit ?? 100, offset: page.offset ?? 0 })]);
    return { total, items: rows.map(toHistoryItem) };
  }

  async deleteHistory(app: string, id?: number): Promise<number> {
    const deleted = await this.models.deleteHistory(app, id);
    if (id !== undefined && deleted === 0) throw new ServiceError(NluErrors.historyNotFound, `No history entry ${id}`);
    return deleted;
  }

  // Keywords of an entity

  async keywords(app: string, label: string): Promise<{ value: string; synonyms: string[] }[]> {
    const entity = await this.requireEntity(app, label);
    return (await this.data.keywordsOfEntity(app, entity.code)).map((k) => ({ value: k.value, synonyms: JSON.parse(k.synonyms) as string[] }));
  }

  async putKeyword(app: string, label: string, input: { value: string; synonyms?: string[] }): Promise<{ value: string; synonyms: string[] }> {
    const entity = await this.requireEntity(app, label);
    const value = input.value.normalize('NFC').trim();
    if (!value) throw new ServiceError(NluErrors.invalidRequest, 'value must not be empty');
    const synonyms = [...new Set((input.synonyms ?? []).map((s) => s.normalize('NFC').trim()).filter(Boolean))];
    // Keyword lists are training data: written with the bump of the data version, as every other write.
    await this.data.write([app], (store) =>
      store.upsertKeyword({ code: uuidv7(), app_code: app, entity_code: entity.code, value, synonyms: JSON.stringify(synonyms), created_time: now() }),
    );
    return { value, synonyms };
  }

  async deleteKeyword(app: string, label: string, value: string): Promise<void> {
    const entity = await this.requireEntity(app, label);
    await this.data.write([app], async (store) => {
      // Thrown inside: nothing deleted, so no bump either.
      if ((await store.deleteKeyword(app, entity.code, value.normalize('NFC').trim())) === 0) {
        throw new ServiceError(NluErrors.keywordNotFound, `Entity "${label}" lists no value "${value}"`);
      }
    });
  }

  private async requireEntity(app: string, label: string) {
    const entity = await this.data.findEntityByLabel(app, label);
    if (!entity) throw new ServiceError(NluErrors.entityNotFound, `No entity labelled "${label}"`);
    return entity;
  }
}

function toHistoryItem(row: HistoryRow): HistoryItem {
  const answer = JSON.parse(row.answer) as { intents: unknown; entities: unknown };
  return { history_id: Number(row.id), content: row.content, intents: answer.intents, entities: answer.entities, created_time: row.created_time };
}
