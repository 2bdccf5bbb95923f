import type { Kysely } from 'kysely';
import { isUniqueViolation, serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { HistoryRow, ModelReportRow, ModelRow, NluTables } from './schema.js';

export type { HistoryRow, KeywordRow, ModelRow, SettingsRow } from './schema.js';

/** Training request states, numbered as the original's train/status answers them. */
export const TrainState = { waiting: 0, training: 1, success: 2, failed: 3 } as const;
export type TrainState = (typeof TrainState)[keyof typeof TrainState];

/** What a training request trains: 0 both halves, 1 intents, 2 entities. */
export const TrainType = { all: 0, intent: 1, entity: 2 } as const;
export type TrainType = (typeof TrainType)[keyof typeof TrainType];

/**
 * Persistence of trained models, settings and prediction history (the
 * keyword lists are training data: `NluStore`). Every method is scoped to
 * one application.
 */
export class ModelStore {
  private readonly db: ServiceDb<NluTables>;

  constructor(db: Kysely<Database>) {
    this.db = serviceDb<NluTables>(db);
  }

  // Models

  /** Inserts a waiting request, or answers the one already waiting or running for the application. */
  async insertOrRunning(row: ModelRow): Promise<{ row: ModelRow; created: boolean }> {
    try {
      await this.db.insertInto('nlu_models').values(row).execute();
      return { row, created: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const running = await this.running(row.app_code);
      // The other request finished between our insert and this read: let the caller try again.
      if (!running) throw err;
      return { row: running, created: false };
    }
  }

  running(app: string): Promise<ModelRow | undefined> {
    return this.db.selectFrom('nlu_models').selectAll().where('running_app', '=', app).executeTakeFirst();
  }

  find(app: string, code: string): Promise<ModelRow | undefined> {
    return this.db.selectFrom('nlu_models').selectAll().where('app_code', '=', app).where('code', '=', code).executeTakeFirst();
  }

  latest(app: string): Promise<ModelRow | undefined> {
    return this.db.selectFrom('nlu_models').selectAll().where('app_code', '=', app).orderBy('created_time', 'desc').orderBy('code', 'desc').limit(1).executeTakeFirst();
  }

  /** The newest successful model's row: the one predictions use. */
  private newestSuccess(app: string) {
    return this.db
      .selectFrom('nlu_models')
      .where('app_code', '=', app)
      .where('state', '=', TrainState.success)
      .orderBy('finished_time', 'desc')
      .orderBy('code', 'desc')
      .limit(1);
  }

  lastSuccess(app: string): Promise<ModelRow | undefined> {
    return this.newestSuccess(app).selectAll().executeTakeFirst();
  }

  /** Only the code and file, read on every prediction (one indexed query). */
  currentModel(app: string): Promise<Pick<ModelRow, 'code' | 'model_file'> | undefined> {
    return this.newestSuccess(app).select(['code', 'model_file']).executeTakeFirst();
  }

  /** Successful models past the newest `keep` whose document is still stored, newest first. */
  olderModels(app: string, keep: number): Promise<Pick<ModelRow, 'code' | 'model_file'>[]> {
    return this.db
      .selectFrom('nlu_models')
      .select(['code', 'model_file'])
      .where('app_code', '=', app)
      .where('state', '=', TrainState.success)
      .orderBy('finished_time', 'desc')
      .orderBy('code', 'desc')
      .offset(keep)
      .limit(1000)
      .execute()
      .then((rows) => rows.filter((r) => r.model_file !== ''));
  }

  /** The request's document is gone (deleted as an old version): its row keeps its metrics and times. */
  async clearModelFile(app: string, code: string): Promise<void> {
    await this.update(app, code, { model_file: '' });
  }

  /** Sets `fields` on the application's request `code`. */
  private async update(app: string, code: string, fields: Partial<ModelRow>): Promise<void> {
    await this.db.updateTable('nlu_models').set(fields).where('app_code', '=', app).where('code', '=', code).execute();
  }

  async markTraining(app: string, code: string, at: string): Promise<void> {
    await this.update(app, code, { state: TrainState.training, started_time: at, progress: 0, message: 'Training started' });
  }

  /** How far a running training is; a row no longer training (finished, failed, taken over) is left alone. */
  async markProgress(app: string, code: string, progress: number, message: string): Promise<void> {
    await this.db
      .updateTable('nlu_models')
      .set({ progress, message })
      .where('app_code', '=', app)
      .where('code', '=', code)
      .where('state', '=', TrainState.training)
      .execute();
  }

  async markSuccess(app: string, code: string, fields: { model_file: string; metrics: string; data_fingerprint: string; message: string; at: string }): Promise<void> {
    await this.update(app, code, {
      state: TrainState.success,
      model_file: fields.model_file,
      metrics: fields.metrics,
      data_fingerprint: fields.data_fingerprint,
      message: fields.message,
      progress: 100,
      finished_time: fields.at,
      running_app: null,
    });
  }

  async markFailed(app: string, code: string, message: string, at: string): Promise<void> {
    await this.update(app, code, { state: TrainState.failed, message, finished_time: at, running_app: null });
  }

  /** Model files of an application (the purge deletes their blobs). */
  async modelFiles(app: string): Promise<string[]> {
    const rows = await this.db.selectFrom('nlu_models').select('model_file').where('app_code', '=', app).where('model_file', '!=', '').execute();
    return rows.map((r) => r.model_file);
  }

  /** The successful model finished before `code` (what a report compares with by default). */
  previousSuccess(app: string, code: string): Promise<Pick<ModelRow, 'code'> | undefined> {
    return this.db
      .selectFrom('nlu_models as m')
      .innerJoin('nlu_models as ref', (join) => join.on('ref.code', '=', code).on('ref.app_code', '=', app))
      .select('m.code')
      .where('m.app_code', '=', app)
      .where('m.state', '=', TrainState.success)
      .where((eb) =>
        eb.or([eb('m.finished_time', '<', eb.ref('ref.finished_time')), eb.and([eb('m.finished_time', '=', eb.ref('ref.finished_time')), eb('m.code', '<', code)])]),
      )
      .orderBy('m.finished_time', 'desc')
      .orderBy('m.code', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  // Cross-validated reports

  async insertReport(row: ModelReportRow): Promise<void> {
    await this.db
      .insertInto('nlu_model_reports')
      .values(row)
      .onConflict((oc) => oc.column('model_code').doNothing())
      .execute();
  }

  async finishReport(app: string, code: string, fields: Pick<ModelReportRow, 'state' | 'message' | 'report' | 'run_ms' | 'finished_time'>): Promise<void> {
    await this.db.updateTable('nlu_model_reports').set(fields).where('app_code', '=', app).where('model_code', '=', code).execute();
  }

  report(app: string, code: string): Promise<ModelReportRow | undefined> {
    return this.db.selectFrom('nlu_model_reports').selectAll().where('app_code', '=', app).where('model_code', '=', code).executeTakeFirst();
  }

  // Settings

  async threshold(app: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('nlu_settings').select('threshold').where('app_code', '=', app).executeTakeFirst();
    return row === undefined ? undefined : Number(row.threshold);
  }

  async setThreshold(app: string, threshold: number, at: string): Promise<void> {
    await this.db
      .insertInto('nlu_settings')
      .values({ app_code: app, threshold, updated_time: at })
      .onConflict((oc) => oc.column('app_code').doUpdateSet({ threshold, updated_time: at }))
      .execute();
  }

  // History

  async insertHistory(row: HistoryRow): Promise<void> {
    await this.db.insertInto('nlu_history').values(row).execute();
  }

  async listHistory(app: string, page: { limit: number; offset: number }): Promise<HistoryRow[]> {
    return this.db
      .selectFrom('nlu_history')
      .selectAll()
      .where('app_code', '=', app)
      .orderBy('created_time', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }

  async countHistory(app: string): Promise<number> {
    const row = await this.db
      .selectFrom('nlu_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_code', '=', app)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async deleteHistory(app: string, id?: number): Promise<number> {
    let query = this.db.deleteFrom('nlu_history').where('app_code', '=', app);
    if (id !== undefined) query = query.where('id', '=', id);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
