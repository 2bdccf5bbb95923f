import type { Kysely, Migration } from 'kysely';
import { BUCKET_COLUMNS } from './histogram.js';

/**
 * Usage counters (one row per application, day, service, endpoint and answer
 * status, with a latency histogram) and per-application quotas. Rows are
 * added to by upserts, so several processes can write the same row. No
 * foreign key on usage rows: a batch written just after an application was
 * deleted must not fail the rest of the batch. Numbered after every owner's
 * first migration (quotas reference applications).
 */
export const usageMigrations: Readonly<Record<string, Migration>> = {
  '0008_usage': {
    async up(db: Kysely<any>) {
      let table = db.schema
        .createTable('usage_daily')
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('latency_sum_ms', 'double precision', (c) => c.notNull())
        .addColumn('latency_max_ms', 'double precision', (c) => c.notNull());
      for (const column of BUCKET_COLUMNS) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
      await table.addPrimaryKeyConstraint('usage_daily_pk', ['app_code', 'day', 'service', 'endpoint', 'status']).execute();
      await db.schema.createIndex('usage_daily_day').on('usage_daily').columns(['day', 'app_code']).execute();
      await db.schema
        .createTable('usage_quotas')
        .addColumn('app_code', 'text', (c) => c.notNull().references('applications.code').onDelete('cascade'))
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('per_minute', 'integer')
        .addColumn('per_day', 'integer')
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_quotas_pk', ['app_code', 'service'])
        .execute();
      // A credential's last use, written with the usage batches (not on every request).
      await db.schema.alterTable('credentials').addColumn('last_used_time', 'text').execute();
    },
  },
};
