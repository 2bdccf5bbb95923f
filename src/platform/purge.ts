/**
 * Deleting an application completely (`saola app delete APP --purge`): every
 * row of every table that has an `app_code` column (found by introspecting
 * the database, so a service's new table cannot be forgotten), the blobs its
 * services name through their purge hooks, its credentials and the
 * application itself. The application is revoked first, so nothing new is
 * written while the purge runs; the purge is idempotent and can be run again
 * after an interruption.
 *
 *   const report = await purgeApplication({ store, blobs }, appCode, purgeHooks);
 */
import { sql } from 'kysely';
import type { BlobStore } from './blobs/store.js';
import type { Store } from './db/database.js';

export interface PurgeContext {
  store: Store;
  blobs: BlobStore;
}

/** A service's part of a purge: what the tables alone do not hold (blobs, files). Runs before the rows go. */
export type PurgeHook = (appCode: string, ctx: PurgeContext) => Promise<{ blobs: number }>;

export interface PurgeReport {
  app_code: string;
  /** Rows deleted per table. */
  rows: Record<string, number>;
  blobs: number;
}

/** Tables with an `app_code` column, on SQLite or PostgreSQL. */
export async function appScopedTables(store: Store): Promise<string[]> {
  const tables = await store.db.introspection.getTables();
  return tables
    .filter((t) => !t.isView && t.columns.some((c) => c.name === 'app_code'))
    .map((t) => t.name)
    .sort();
}

export async function purgeApplication(ctx: PurgeContext, appCode: string, hooks: readonly PurgeHook[]): Promise<PurgeReport> {
  const { db } = ctx.store;
  const now = new Date().toISOString();
  await db.updateTable('applications').set({ revoked_time: now }).where('code', '=', appCode).where('revoked_time', 'is', null).execute();
  let blobs = 0;
  for (const hook of hooks) blobs += (await hook(appCode, ctx)).blobs;
  // Child tables refer to parent tables (foreign keys) and the order is not declared anywhere:
  // delete table by table, and retry the ones a reference held back until a pass makes no progress.
  const rows: Record<string, number> = {};
  let pending = await appScopedTables(ctx.store);
  let lastError: unknown;
  while (pending.length > 0) {
    const held: string[] = [];
    for (const table of pending) {
      try {
        const result = await sql`delete from ${sql.table(table)} where app_code = ${appCode}`.execute(db);
        rows[table] = (rows[table] ?? 0) + Number(result.numAffectedRows ?? 0);
      } catch (err) {
        lastError = err;
        held.push(table);
      }
    }
    if (held.length === pending.length) throw new Error(`Could not delete the rows of ${held.join(', ')}: ${(lastError as Error)?.message}`);
    pending = held;
  }
  const app = await db.deleteFrom('applications').where('code', '=', appCode).executeTakeFirst();
  rows.applications = Number(app.numDeletedRows);
  return { app_code: appCode, rows, blobs };
}
