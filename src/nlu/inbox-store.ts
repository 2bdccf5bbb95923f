import { sql, type Kysely } from 'kysely';
import { serviceDb, type ServiceDb } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import type { HistoryRow, HistorySettingsRow, InboxRow, NluTables } from './schema.js';

/** An inbox row with its saved prediction's text. */
export type InboxEntry = InboxRow & { content: string };

/** Per-day counts: items that came in, were reported, and were resolved each way. */
export interface InboxDayRow {
  day: string;
  what: string;
  n: number | string;
}

/** At most this many ids per statement (PostgreSQL and SQLite both take far more; a bound on one request's work). */
const IDS_PER_QUERY = 500;

/**
 * Persistence of the inbox, the history settings and the retention sweep. Every method is scoped to one
 * application, except the sweep, which walks the applications that set a retention.
 */
export class InboxStore {
  private readonly db: ServiceDb<NluTables>;

  constructor(db: Kysely<Database>) {
    this.db = serviceDb<NluTables>(db);
  }

  /** A saved prediction and, when the inbox wants it, its inbox item, together. */
  async insertPrediction(history: HistoryRow, item: InboxRow | undefined): Promise<void> {
    if (!item) {
      await this.db.insertInto('nlu_history').values(history).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('nlu_history').values(history).execute();
      await trx.insertInto('nlu_inbox').values(item).execute();
    });
  }

  findHistory(app: string, id: number): Promise<HistoryRow | undefined> {
    return this.db.selectFrom('nlu_history').selectAll().where('app_code', '=', app).where('id', '=', id).executeTakeFirst();
  }

  findItem(app: string, id: number): Promise<InboxRow | undefined> {
    return this.db.selectFrom('nlu_inbox').selectAll().where('app_code', '=', app).where('history_id', '=', id).executeTakeFirst();
  }

  async insertItem(item: InboxRow): Promise<void> {
    await this.db.insertInto('nlu_inbox').values(item).execute();
  }

  async updateItem(app: string, id: number, fields: Partial<InboxRow>): Promise<void> {
    await this.db.updateTable('nlu_inbox').set(fields).where('app_code', '=', app).where('history_id', '=', id).execute();
  }

  private entries() {
    return this.db.selectFrom('nlu_inbox').innerJoin('nlu_history', 'nlu_history.id', 'nlu_inbox.history_id').selectAll('nlu_inbox').select('nlu_history.content');
  }

  /** The newest `limit` items in `state`, newest first. */
  listEntries(app: string, state: string, limit: number): Promise<InboxEntry[]> {
    return this.entries()
      .where('nlu_inbox.app_code', '=', app)
      .where('nlu_inbox.state', '=', state)
      .orderBy('nlu_inbox.created_time', 'desc')
      .orderBy('nlu_inbox.history_id', 'desc')
      .limit(limit)
      .execute();
  }

  countEntries(app: string, state: string): Promise<number> {
    return this.db
      .selectFrom('nlu_inbox')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_code', '=', app)
      .where('state', '=', state)
      .executeTakeFirst()
      .then((r) => Number(r?.n ?? 0));
  }

  async entriesByIds(app: string, ids: number[]): Promise<InboxEntry[]> {
    const out: InboxEntry[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      out.push(
        ...(await this.entries()
          .where('nlu_inbox.app_code', '=', app)
          .where('nlu_inbox.history_id', 'in', ids.slice(i, i + IDS_PER_QUERY))
          .execute()),
      );
    }
    return out;
  }

  /** Sets the state of the application's items `ids`; answers how many there were. */
  async resolve(app: string, ids: number[], state: string, at: string): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const result = await this.db
        .updateTable('nlu_inbox')
        .set({ state, resolved_time: at })
        .where('app_code', '=', app)
        .where('history_id', 'in', ids.slice(i, i + IDS_PER_QUERY))
        .executeTakeFirst();
      n += Number(result.numUpdatedRows);
    }
    return n;
  }

  /**
   * Counts per day from `sinceDay` (YYYY-MM-DD): `added` by the day an item came in, `reported` likewise, and each
   * resolution by the day it was made (timestamps are ISO-8601 UTC text, so the day is their first 10 characters).
   */
  async dailyCounts(app: string, sinceDay: string): Promise<InboxDayRow[]> {
    const since = `${sinceDay}T00:00:00.000Z`;
    const created = sql<string>`substr(created_time, 1, 10)`;
    const resolved = sql<string>`substr(resolved_time, 1, 10)`;
    const rows = await Promise.all([
      this.db
        .selectFrom('nlu_inbox')
        .select([created.as('day'), sql<string>`'added'`.as('what'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('app_code', '=', app)
        .where('created_time', '>=', since)
        .groupBy(created)
        .execute(),
      this.db
        .selectFrom('nlu_inbox')
        .select([created.as('day'), sql<string>`'reported'`.as('what'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('app_code', '=', app)
        .where('created_time', '>=', since)
        .where('reasons', 'like', '%reported%')
        .groupBy(created)
        .execute(),
      this.db
        .selectFrom('nlu_inbox')
        .select([resolved.as('day'), 'state as what', (eb) => eb.fn.countAll<number>().as('n')])
        .where('app_code', '=', app)
        .where('resolved_time', '>=', since)
        .groupBy([resolved, 'state'])
        .execute(),
    ]);
    return rows.flat();
  }

  // History settings

  historySettings(app: string): Promise<HistorySettingsRow | undefined> {
    return this.db.selectFrom('nlu_history_settings').selectAll().where('app_code', '=', app).executeTakeFirst();
  }

  async setHistorySettings(row: HistorySettingsRow): Promise<void> {
    await this.db
      .insertInto('nlu_history_settings')
      .values(row)
      .onConflict((oc) => oc.column('app_code').doUpdateSet({ retention_days: row.retention_days, mask: row.mask, updated_time: row.updated_time }))
      .execute();
  }

  /** Applications that keep their saved predictions a limited time, with that time in days. */
  retentions(): Promise<{ app_code: string; retention_days: number }[]> {
    return this.db.selectFrom('nlu_history_settings').select(['app_code', 'retention_days']).where('retention_days', '>', 0).execute();
  }

  /** Deletes the application's saved predictions made before `before` (their inbox items go with them); answers how many. */
  async deleteHistoryBefore(app: string, before: string): Promise<number> {
    const result = await this.db.deleteFrom('nlu_history').where('app_code', '=', app).where('created_time', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
