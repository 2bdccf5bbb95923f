/**
 * Live-probability thresholds an operator chose from their own labelled
 * videos (`saola eval liveness --write`), kept in `liveness_thresholds`:
 * per application, or `*` for all. A running server re-reads them at most
 * every CACHE_MS.
 */
import type { Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { LivenessTables, LivenessThresholdRow } from './schema.js';

export type { LivenessThresholdRow } from './schema.js';

export const GLOBAL_SCOPE = '*';
const CACHE_MS = 10_000;

type ThresholdDb = ServiceDb<LivenessTables>;

export class LivenessThresholds {
  private readonly db: ThresholdDb;
  private cache: { at: number; rows: Map<string, number> } | undefined;

  constructor(db: Kysely<Database>) {
    this.db = serviceDb<LivenessTables>(db);
  }

  async list(): Promise<LivenessThresholdRow[]> {
    return (await this.db.selectFrom('liveness_thresholds').selectAll().orderBy('scope').execute()).map((r) => ({ ...r, threshold: Number(r.threshold) }));
  }

  /** The application's threshold, else the global one, else undefined (the setting applies). */
  async forApp(appCode: string): Promise<number | undefined> {
    if (!this.cache || Date.now() - this.cache.at > CACHE_MS) {
      this.cache = { at: Date.now(), rows: new Map((await this.list()).map((r) => [r.scope, r.threshold])) };
    }
    return this.cache.rows.get(appCode) ?? this.cache.rows.get(GLOBAL_SCOPE);
  }

  async set(scope: string, threshold: number): Promise<void> {
    const row: LivenessThresholdRow = { scope, threshold, updated_at: new Date().toISOString() };
    await this.db
      .insertInto('liveness_thresholds')
      .values(row)
      .onConflict((oc) => oc.column('scope').doUpdateSet({ threshold: row.threshold, updated_at: row.updated_at }))
      .execute();
    this.cache = undefined;
  }
}
