import type { Kysely, Migration } from 'kysely';
import { createAppTable } from '../platform/db/tables.js';

/** The training-data tables. Append new migrations; never edit one that has shipped. */
export const nluMigrations: Readonly<Record<string, Migration>> = {
  '0002_nlu': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'nlu_intents', 'code')
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('nlu_intents_app_label', ['app_code', 'label'])
        .execute();
      await createAppTable(db, 'nlu_samples', 'code')
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('nlu_samples_app').on('nlu_samples').columns(['app_code', 'created_time']).execute();
      await db.schema.createIndex('nlu_samples_content').on('nlu_samples').columns(['app_code', 'content']).execute();
      await createAppTable(db, 'nlu_entities', 'code')
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('nlu_entities_app_label', ['app_code', 'label'])
        .execute();
      // A sample carries at most one intent (the detail form has one `intent`).
      await createAppTable(db, 'nlu_intent_samples', 'code')
        .addColumn('intent_code', 'text', (c) => c.notNull().references('nlu_intents.code').onDelete('cascade'))
        .addColumn('sample_code', 'text', (c) => c.notNull().unique().references('nlu_samples.code').onDelete('cascade'))
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('nlu_intent_samples_intent').on('nlu_intent_samples').column('intent_code').execute();
      await createAppTable(db, 'nlu_entity_samples', 'code')
        .addColumn('entity_code', 'text', (c) => c.notNull().references('nlu_entities.code').onDelete('cascade'))
        .addColumn('sample_code', 'text', (c) => c.notNull().references('nlu_samples.code').onDelete('cascade'))
        .addColumn('parent_code', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('start', 'integer', (c) => c.notNull())
        .addColumn('end', 'integer', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('nlu_entity_samples_sample').on('nlu_entity_samples').column('sample_code').execute();
      await db.schema.createIndex('nlu_entity_samples_entity').on('nlu_entity_samples').column('entity_code').execute();
    },
  },
  // Trained models (one row per training request), per-application settings, prediction history, keyword lists.
  '0002_nlu_02_models': {
    async up(db: Kysely<any>) {
      await createAppTable(db, 'nlu_models', 'code')
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('state', 'integer', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('model_file', 'text', (c) => c.notNull())
        .addColumn('metrics', 'text', (c) => c.notNull())
        .addColumn('data_fingerprint', 'text', (c) => c.notNull())
        // Set to app_code while the training waits or runs: the unique index allows one at a time per application.
        .addColumn('running_app', 'text', (c) => c.unique())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('started_time', 'text')
        .addColumn('finished_time', 'text')
        .execute();
      await db.schema.createIndex('nlu_models_app').on('nlu_models').columns(['app_code', 'state', 'finished_time']).execute();
      await db.schema
        .createTable('nlu_settings')
        .addColumn('app_code', 'text', (c) => c.primaryKey())
        .addColumn('threshold', 'double precision', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('nlu_history')
        // An integer: the original's clients read `history_id` as a 64-bit integer.
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('nlu_history_app').on('nlu_history').columns(['app_code', 'created_time']).execute();
      await createAppTable(db, 'nlu_entity_keywords', 'code')
        .addColumn('entity_code', 'text', (c) => c.notNull().references('nlu_entities.code').onDelete('cascade'))
        .addColumn('value', 'text', (c) => c.notNull())
        // A JSON array of strings.
        .addColumn('synonyms', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('nlu_entity_keywords_value', ['entity_code', 'value'])
        .execute();
    },
  },
  /*
   * Why: the full sample list (GET /sample) is cached per process, and on PostgreSQL other processes write
   * too. Every write to an application's training data bumps its counter in the same transaction, so a
   * process compares one indexed row with the version its cached list was read at (docs/nlu.md, issue 28).
   */
  '0002_nlu_03_data_versions': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('nlu_data_versions')
        .addColumn('app_code', 'text', (c) => c.primaryKey())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
    },
  },
  /* Why: a training of tens of thousands of samples runs for minutes; train/status shows how far it is. */
  '0002_nlu_04_model_progress': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('nlu_models')
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  /*
   * Why: the inbox turns saved predictions the model was unsure about (or an end user reported) into training
   * data; each item follows its history row (retention, deletes), while a sample keeps where it came from after
   * the history row is gone. Settings of the history (retention, masking) are per application.
   */
  '0002_nlu_05_inbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('nlu_inbox')
        .addColumn('history_id', 'bigint', (c) => c.primaryKey().references('nlu_history.id').onDelete('cascade'))
        .addColumn('app_code', 'text', (c) => c.notNull())
        // Comma-separated reasons: low_confidence, close_second, no_intent, reported.
        .addColumn('reasons', 'text', (c) => c.notNull())
        .addColumn('top_intent', 'text', (c) => c.notNull())
        .addColumn('top_confidence', 'double precision', (c) => c.notNull())
        .addColumn('second_intent', 'text', (c) => c.notNull())
        .addColumn('second_confidence', 'double precision', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('resolved_time', 'text')
        .addColumn('sample_code', 'text')
        .execute();
      await db.schema.createIndex('nlu_inbox_app_state').on('nlu_inbox').columns(['app_code', 'state', 'created_time']).execute();
      await db.schema
        .createTable('nlu_sample_origins')
        .addColumn('sample_code', 'text', (c) => c.primaryKey().references('nlu_samples.code').onDelete('cascade'))
        .addColumn('app_code', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('history_id', 'bigint', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('nlu_history_settings')
        .addColumn('app_code', 'text', (c) => c.primaryKey())
        .addColumn('retention_days', 'integer', (c) => c.notNull())
        .addColumn('mask', 'integer', (c) => c.notNull())
        .addColumn('updated_time', 'text', (c) => c.notNull())
        .execute();
    },
  },
  /* Why: a k-fold cross-validated report per model version, made by its own job after the model is ready. */
  '0002_nlu_06_model_reports': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('nlu_model_reports')
        .addColumn('model_code', 'text', (c) => c.primaryKey().references('nlu_models.code').onDelete('cascade'))
        .addColumn('app_code', 'text', (c) => c.notNull())
        // waiting, ready, failed, stale (the training data changed before the report ran).
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        // JSON of the report ({} until ready).
        .addColumn('report', 'text', (c) => c.notNull())
        .addColumn('run_ms', 'integer', (c) => c.notNull())
        .addColumn('created_time', 'text', (c) => c.notNull())
        .addColumn('finished_time', 'text')
        .execute();
    },
  },
};
