import type { Kysely, Migration } from 'kysely';
import { createAppTable } from '../platform/db/tables.js';
import { ekycReviewMigrations } from './review-migrations.js';

/** The eKYC tables. Append new migrations; never edit one that has shipped. */
export const ekycMigrations: Readonly<Record<string, Migration>> = {
  '0009_ekyc': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'ekyc_sessions')
        .addColumn('device_type', 'text', (c) => c.notNull())
        .addColumn('client_uuid', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('document_type', 'text')
        .addColumn('front', 'text')
        .addColumn('back', 'text')
        .addColumn('id_number', 'text')
        .addColumn('document_face', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('expires_time', 'text', (c) => c.notNull())
        .addColumn('completed_time', 'text')
        .execute();
      // Retention deletes by age across applications.
      await db.schema.createIndex('ekyc_sessions_created').on('ekyc_sessions').columns(['created_time']).execute();
      await createAppTable(db, 'ekyc_images')
        .addColumn('session_id', 'text', (c) => c.notNull().references('ekyc_sessions.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ekyc_images_session').on('ekyc_images').columns(['session_id']).execute();
      await db.schema.createIndex('ekyc_images_app').on('ekyc_images').columns(['app_code']).execute();
      await createAppTable(db, 'ekyc_fraud_memory')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('id_number', 'text')
        .addColumn('face', 'text')
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('expires_time', 'text', (c) => c.notNull())
        .execute();
      // Every check is "this application's memory still in force", by number or by face.
      await db.schema.createIndex('ekyc_fraud_memory_lookup').on('ekyc_fraud_memory').columns(['app_code', 'expires_time']).execute();
    },
  },
  ...ekycReviewMigrations,
  '0009_ekyc_02_app_settings': {
    async up(db: Kysely<any>) {
      // One row per application that overrides a flow setting; no row: the deployment's SAOLA_EKYC_* values.
      await db.schema
        .createTable('ekyc_app_settings')
        .addColumn('app_code', 'text', (c) => c.primaryKey().references('applications.code'))
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0009_ekyc_03_attempts': {
    async up(db: Kysely<any>) {
      // The sides the flow refused, with their check results and image, for the review desk; they go with the session.
      await createAppTable(db, 'ekyc_attempts')
        .addColumn('session_id', 'text', (c) => c.notNull().references('ekyc_sessions.id').onDelete('cascade'))
        .addColumn('side', 'text', (c) => c.notNull())
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('checks', 'text', (c) => c.notNull())
        .addColumn('image_id', 'text')
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ekyc_attempts_session').on('ekyc_attempts').columns(['session_id']).execute();
    },
  },
};
