import type { Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { AlphaEventRow, CreditImportRow, CreditModelRow, CreditTables } from './schema.js';
import { ALPHA_LOOKBACK_DAYS } from './sources/alpha-features.js';

export type CreditDb = ServiceDb<CreditTables>;

/** Rows per INSERT: SQLite caps bound parameters per statement (10 columns x 400). */
const INSERT_CHUNK = 400;

/**
 * Persistence of the credit service. Every method takes the application: no
 * query here reads or touches another application's events or models.
 */
export class CreditStore {
  constructor(readonly db: CreditDb) {}

  static over(db: Kysely<Database>): CreditStore {
    return new CreditStore(serviceDb<CreditTables>(db));
  }

  /** Inserts events, skipping those whose (app, event_key) is already stored. Answers how many were new. */
  async insertEvents(rows: AlphaEventRow[]): Promise<number> {
    let inserted = 0;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const result = await trx
          .insertInto('credit_alpha_events')
          .values(rows.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) => oc.columns(['app_code', 'event_key']).doNothing())
          .executeTakeFirst();
        inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
    });
    return inserted;
  }

  /**
   * The events that can matter for a decision at `before`: those strictly
   * earlier, within the look-back window, plus the activation (tenure).
   */
  eventsBefore(app: string, phone: string, before: Date): Promise<Pick<AlphaEventRow, 'event_type' | 'occurred_at' | 'amount' | 'days_late'>[]> {
    const from = new Date(before.getTime() - ALPHA_LOOKBACK_DAYS * 86_400_000).toISOString();
    return this.db
      .selectFrom('credit_alpha_events')
      .select(['event_type', 'occurred_at', 'amount', 'days_late'])
      .where('app_code', '=', app)
      .where('phone', '=', phone)
      .where('occurred_at', '<', before.toISOString())
      .where((eb) => eb.or([eb('occurred_at', '>=', from), eb('event_type', '=', 'activation')]))
      .execute();
  }

  async countEvents(app: string): Promise<number> {
    const row = await this.db
      .selectFrom('credit_alpha_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('app_code', '=', app)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async recordImport(row: CreditImportRow): Promise<void> {
    await this.db.insertInto('credit_imports').values(row).execute();
  }

  /** Stages one batch of an import: kept apart, unseen by scoring, until `commitImport`. */
  async stageEvents(rows: AlphaEventRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('credit_import_staging')
          .values(rows.slice(i, i + INSERT_CHUNK))
          .execute();
      }
    });
  }

  /**
   * Makes a staged import visible, all of it at once: in one transaction its
   * rows move into the feature store (skipping keys already stored, and a key
   * repeated in the file after its first row), the import is recorded with
   * its counts, and its staging rows go. A process killed before the commit
   * leaves only staging rows, which `dropAbandonedStaging` removes.
   */
  async commitImport(row: Omit<CreditImportRow, 'inserted' | 'duplicates'>, staged: number): Promise<{ inserted: number; duplicates: number }> {
    const columns = ['id', 'app_code', 'event_key', 'phone', 'event_type', 'occurred_at', 'amount', 'days_late', 'import_id', 'created_time'] as const;
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .insertInto('credit_alpha_events')
        .columns([...columns])
        .expression(
          trx
            .selectFrom('credit_import_staging')
            .select([...columns])
            .where('import_id', '=', row.id)
            .orderBy('id'),
        )
        .onConflict((oc) => oc.columns(['app_code', 'event_key']).doNothing())
        .executeTakeFirst();
      const inserted = Number(moved.numInsertedOrUpdatedRows ?? 0n);
      await trx.deleteFrom('credit_import_staging').where('import_id', '=', row.id).execute();
      await trx
        .insertInto('credit_imports')
        .values({ ...row, inserted, duplicates: staged - inserted })
        .execute();
      return { inserted, duplicates: staged - inserted };
    });
  }

  /** Drops one import's staging rows (it failed, or was refused). */
  async dropStaging(importId: string): Promise<void> {
    await this.db.deleteFrom('credit_import_staging').where('import_id', '=', importId).execute();
  }

  /**
   * Drops the staging rows of imports that wrote no batch since `cutoff`
   * (ISO time): their process died. A live import writes a batch every
   * fraction of a second. Answers the rows dropped.
   */
  async dropAbandonedStaging(cutoff: string): Promise<number> {
    const abandoned = this.db
      .selectFrom('credit_import_staging')
      .select('import_id')
      .groupBy('import_id')
      .having((eb) => eb.fn.max('created_time'), '<', cutoff);
    const r = await this.db.deleteFrom('credit_import_staging').where('import_id', 'in', abandoned).executeTakeFirst();
    return Number(r.numDeletedRows ?? 0n);
  }

  /** The newest model's id and version for (app, source, dltype), without its body. */
  latestModel(app: string, source: string, dltype: number): Promise<Pick<CreditModelRow, 'id' | 'version'> | undefined> {
    return this.db
      .selectFrom('credit_models')
      .select(['id', 'version'])
      .where('app_code', '=', app)
      .where('source', '=', source)
      .where('dltype', '=', dltype)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  getModel(app: string, id: string): Promise<CreditModelRow | undefined> {
    return this.db.selectFrom('credit_models').selectAll().where('app_code', '=', app).where('id', '=', id).executeTakeFirst();
  }

  listModels(app: string): Promise<Omit<CreditModelRow, 'model'>[]> {
    return this.db
      .selectFrom('credit_models')
      .select(['id', 'app_code', 'source', 'dltype', 'version', 'metrics', 'train_rows', 'created_time'])
      .where('app_code', '=', app)
      .orderBy('source')
      .orderBy('dltype')
      .orderBy('version')
      .execute();
  }

  /** Every application's newest models, to load them all at start. */
  async latestModelsOfAllApps(): Promise<CreditModelRow[]> {
    const rows = await this.db.selectFrom('credit_models').selectAll().orderBy('version', 'desc').execute();
    const seen = new Set<string>();
    return rows.filter((r) => {
      const key = `${r.app_code}/${r.source}/${r.dltype}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Stores a model as the next version of its (app, source, dltype), in one transaction. */
  async saveModel(row: Omit<CreditModelRow, 'version'> & { version?: number }, build: (version: number) => string): Promise<CreditModelRow> {
    return this.db.transaction().execute(async (trx) => {
      const last = await trx
        .selectFrom('credit_models')
        .select(['version'])
        .where('app_code', '=', row.app_code)
        .where('source', '=', row.source)
        .where('dltype', '=', row.dltype)
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
      const version = (last?.version ?? 0) + 1;
      const full: CreditModelRow = { ...row, version, model: build(version) };
      await trx.insertInto('credit_models').values(full).execute();
      return full;
    });
  }
}
