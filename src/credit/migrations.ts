import type { CreateTableBuilder, Kysely, Migration } from 'kysely';
import { createAppTable } from '../platform/db/tables.js';

/** The columns of an alpha event, in the events table and in the import's staging table alike. */
const eventColumns = (table: CreateTableBuilder<string, 'app_code'>) =>
  table
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('amount', 'double precision')
    .addColumn('days_late', 'integer')
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('created_time', 'text', (c) => c.notNull());

/** The credit service's tables. Append new migrations; never edit one that has shipped. */
export const creditMigrations: Readonly<Record<string, Migration>> = {
  '0006_credit': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'credit_alpha_events').$call(eventColumns).addUniqueConstraint('credit_alpha_events_app_key', ['app_code', 'event_key']).execute();
      // Every feature lookup is "this application's events of this phone before T".
      await db.schema.createIndex('credit_alpha_events_lookup').on('credit_alpha_events').columns(['app_code', 'phone', 'occurred_at']).execute();
      await createAppTable(db, 'credit_models')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('dltype', 'integer', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('metrics', 'text', (c) => c.notNull())
        .addColumn('train_rows', 'integer', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('credit_models_version', ['app_code', 'source', 'dltype', 'version'])
        .execute();
      await createAppTable(db, 'credit_imports')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('rows_total', 'integer', (c) => c.notNull())
        .addColumn('inserted', 'integer', (c) => c.notNull())
        .addColumn('duplicates', 'integer', (c) => c.notNull())
        .addColumn('rejected', 'integer', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_imports_app').on('credit_imports').columns(['app_code', 'created_time']).execute();
    },
  },
  // Imports land whole or not at all: rows are staged in batches, then moved into
  // credit_alpha_events with the import's record in one transaction (src/credit/import.ts).
  '0006_credit_02_import_staging': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'credit_import_staging').$call(eventColumns).execute();
      await db.schema.createIndex('credit_import_staging_import').on('credit_import_staging').columns(['import_id', 'created_time']).execute();
    },
  },
};
