import { sql } from 'kysely';
import type { Store } from '../db/database.js';
import { appScopedTables } from '../purge.js';

/** How many rows each table holds for an application (tables with none are left out): what a purge would delete. */
export async function applicationRecords(store: Store, appCode: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await appScopedTables(store)) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where app_code = ${appCode}`.execute(store.db);
    const n = Number(rows[0]?.n ?? 0);
    if (n > 0) out[table] = n;
  }
  return out;
}
