import type { Kysely, Migration } from 'kysely';
import { createAppTable } from '../platform/db/tables.js';

/** The review desk's and the webhooks' tables. A session's review, audit rows and deliveries go with the session (retention, purge). */
export const ekycReviewMigrations: Readonly<Record<string, Migration>> = {
  '0009_ekyc_review': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'ekyc_reviews')
        .addColumn('session_id', 'text', (c) => c.notNull().unique().references('ekyc_sessions.id').onDelete('cascade'))
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('reviewer', 'text', (c) => c.notNull())
        .addColumn('decided_time', 'text', (c) => c.notNull())
        .execute();
      await createAppTable(db, 'ekyc_audit')
        .addColumn('session_id', 'text', (c) => c.references('ekyc_sessions.id').onDelete('cascade'))
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ekyc_audit_app').on('ekyc_audit').columns(['app_code', 'session_id', 'created_time']).execute();
      await createAppTable(db, 'ekyc_webhooks')
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
      await createAppTable(db, 'ekyc_webhook_deliveries')
        .addColumn('session_id', 'text', (c) => c.notNull().references('ekyc_sessions.id').onDelete('cascade'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ekyc_webhook_deliveries_app').on('ekyc_webhook_deliveries').columns(['app_code', 'created_time']).execute();
      // The desk lists an application's sessions newest first, filtered by status and document type.
      await db.schema.createIndex('ekyc_sessions_app_created').on('ekyc_sessions').columns(['app_code', 'created_time']).execute();
    },
  },
};
