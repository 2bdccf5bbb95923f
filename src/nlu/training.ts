import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { uuidv7 } from '../platform/ids.js';
import type { BlobStore } from '../platform/blobs/store.js';
import { ServiceError } from '../platform/http/errors.js';
import { PermanentJobError, type JobContext, type JobQueue } from '../platform/jobs/queue.js';
import type { TrainJob, TrainStatus } from './api-schemas.js';
import { NluErrors } from './errors.js';
import type { EntityDefinition, EntityKind, ModelMetrics, NluModelData, TrainProgress, TrainRequest, TrainingExample } from './engine/model.js';
import type { ServedModels } from './model-cache.js';
import { TrainState, TrainType, type ModelRow, type ModelStore } from './model-store.js';
import type { NluStore } from './store.js';

export const TRAIN_QUEUE = 'nlu-train';
/** Cross-validated reports, one job per model version, after the model is ready (so a training takes no longer). */
export const REPORT_QUEUE = 'nlu-report';

/** Successful models whose documents an application keeps (the newest; older ones are deleted after a training). */
export const KEPT_MODEL_VERSIONS = 5;

export interface TrainJobPayload {
  app: string;
  code: string;
}

/**
 * Runs one training off the event loop (the worker pool); answers the model document as JSON. `onProgress` is
 * told how far it is as it goes; `signal` aborts it (the job's claim was lost to another worker).
 */
export type Trainer = (request: TrainRequest, onProgress?: (p: TrainProgress) => void, signal?: AbortSignal) => Promise<string>;

/** Runs the cross-validated report of a training set off the event loop; answers the report as JSON. */
export type Reporter = (request: TrainRequest, signal?: AbortSignal) => Promise<string>;

export interface ReportJobPayload {
  app: string;
  /** The model version the report is of. */
  code: string;
}

/** How often a running training writes its progress to the store at most (each write is one indexed update). */
const PROGRESS_EVERY_MS = 1_000;

export type TrainPart = 'all' | 'intent' | 'entity';

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

export function now(): string {
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

function toJob(row: ModelRow): Static<typeof TrainJob> {
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
 * Training for one application at a time: training requests go to the job queue (one waiting or running per
 * application), each success is a versioned model document in the blob store.
 */
export class TrainingService {
  /** Each application's `trainingSummary` and the data version it was read at. */
  private readonly summaries = new Map<string, { version: number; summary: TrainingSummary }>();

  constructor(
    private readonly data: NluStore,
    private readonly models: ModelStore,
    private readonly jobs: JobQueue,
    private readonly blobs: BlobStore,
    private readonly served: ServedModels,
    /** Whether a model's cross-validated report is made after it is ready. */
    private readonly reports = true,
  ) {}

  async train(app: string, part: TrainPart): Promise<{ message: string; status: Static<typeof TrainJob>[] }> {
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

  async status(app: string): Promise<Static<typeof TrainStatus>> {
    const [latest, success, set] = await Promise.all([this.models.latest(app), this.models.lastSuccess(app), this.trainingSummary(app)]);
    const metrics = success ? parseMetrics(success.metrics) : {};
    // A newer model than the one predictions here use (trained by another process): use it from now on.
    const served = this.served.servedCode(app);
    if (served !== undefined && served !== (success?.code ?? '')) this.served.forget(app);
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
        const previous = await this.served.currentModelData(app).catch(() => undefined);
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
      this.served.forget(app);
      const pruned = await this.deleteOldModels(app);
      const report = this.reports ? await this.queueReport(app, code) : {};
      return { model_file: key, samples: set.examples.length, ...pruned, ...report };
    } catch (err) {
      if (lastAttempt || err instanceof PermanentJobError) {
        await this.models.markFailed(app, code, `Training failed: ${(err as Error).message ?? String(err)}`, now());
      }
      throw err;
    }
  }

  /** A waiting report row and its job; a failure to queue is written on the row and does not fail the training. */
  private async queueReport(app: string, code: string): Promise<{ report_error?: string }> {
    await this.models.insertReport({
      model_code: code,
      app_code: app,
      state: 'waiting',
      message: 'Waiting for the report',
      report: '{}',
      run_ms: 0,
      created_time: now(),
      finished_time: null,
    });
    try {
      await this.jobs.enqueue(REPORT_QUEUE, { app, code } satisfies ReportJobPayload, { appCode: app, key: `report:${code}`, maxAttempts: 2 });
      return {};
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      await this.models.finishReport(app, code, { state: 'failed', message: `Could not queue the report: ${message}`, report: '{}', run_ms: 0, finished_time: now() });
      return { report_error: message };
    }
  }

  /**
   * The report queue's handler: the k-fold report of the training set model `code` learnt from. The set is read
   * again; when it changed since (its fingerprint differs) the report says so instead of measuring other data.
   */
  async runReport(payload: ReportJobPayload, reporter: Reporter, lastAttempt: boolean, ctx?: JobContext): Promise<unknown> {
    const { app, code } = payload;
    const [model, current] = await Promise.all([this.models.find(app, code), this.models.report(app, code)]);
    if (!model || !current || current.state !== 'waiting') return { skipped: true };
    const set = await this.trainingSet(app);
    if (set.fingerprint !== model.data_fingerprint) {
      await this.models.finishReport(app, code, {
        state: 'stale',
        message: 'The training data changed before the report ran: the next training has a report of it',
        report: '{}',
        run_ms: 0,
        finished_time: now(),
      });
      return { stale: true };
    }
    const part = (Object.keys(TYPE_OF) as TrainPart[]).find((p) => TYPE_OF[p] === model.type) ?? 'all';
    const parts = { intent: part !== 'entity', entity: part !== 'intent' && set.entities.length > 0 };
    const started = Date.now();
    try {
      const report = await reporter({ examples: set.examples, entities: set.entities, parts }, ctx?.signal);
      const ms = Date.now() - started;
      await this.models.finishReport(app, code, {
        state: 'ready',
        message: `Cross-validated on ${set.examples.length} samples`,
        report,
        run_ms: ms,
        finished_time: now(),
      });
      return { samples: set.examples.length, ms };
    } catch (err) {
      if (lastAttempt) {
        await this.models.finishReport(app, code, {
          state: 'failed',
          message: `Report failed: ${(err as Error)?.message ?? String(err)}`,
          report: '{}',
          run_ms: 0,
          finished_time: now(),
        });
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
}
