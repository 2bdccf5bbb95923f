/**
 * Per-application settings of the reader, kept in `reader_app_settings`.
 * Today one: whether the application has the arrangement under which a
 * back's distinguishing features (`features`) are returned.
 */
import type { Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { ReaderAppSettingsRow, ReaderTables } from './schema.js';

/** A row of `reader_app_settings`; `features` is 0/1 on both engines. */

export interface ReaderAppSettings {
  app_code: string;
  /** True when the back's `features` are returned to this application. */
  features: boolean;
  /** When an operator last changed the settings; null while they are the defaults. */
  updated_time: string | null;
}

type ReaderDb = ServiceDb<ReaderTables>;

export class ReaderSettingsStore {
  private readonly db: ReaderDb;

  constructor(db: Kysely<Database>) {
    this.db = serviceDb<ReaderTables>(db);
  }

  /** The application's settings; the defaults (nothing arranged) when it has no row. */
  async get(appCode: string): Promise<ReaderAppSettings> {
    const row = await this.db.selectFrom('reader_app_settings').selectAll().where('app_code', '=', appCode).executeTakeFirst();
    return { app_code: appCode, features: Number(row?.features ?? 0) === 1, updated_time: row?.updated_time ?? null };
  }

  /** Whether the back's `features` may be returned to the application (one primary-key lookup). */
  async featuresArranged(appCode: string): Promise<boolean> {
    const row = await this.db.selectFrom('reader_app_settings').select('features').where('app_code', '=', appCode).executeTakeFirst();
    return Number(row?.features ?? 0) === 1;
  }

  async setFeatures(appCode: string, arranged: boolean): Promise<ReaderAppSettings> {
    const row: ReaderAppSettingsRow = { app_code: appCode, features: arranged ? 1 : 0, updated_time: new Date().toISOString() };
    await this.db
      .insertInto('reader_app_settings')
      .values(row)
      .onConflict((oc) => oc.column('app_code').doUpdateSet({ features: row.features, updated_time: row.updated_time }))
      .execute();
    return { app_code: appCode, features: arranged, updated_time: row.updated_time };
  }
}
